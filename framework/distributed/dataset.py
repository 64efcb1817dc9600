"""Paddle's file datasets for static training (``paddle.distributed.InMemoryDataset``,
``QueueDataset``, ``fleet.DatasetBase``), read by ``Executor.train_from_dataset``.

Each file goes through ``pipe_command`` (a shell pipeline reading the file on
its standard input, ``cat`` by default); every output line is one instance in
Paddle's MultiSlot text format: for each variable of ``use_var``, in order, a
count followed by that many values (``3 0.1 0.2 0.3 1 7`` for a float slot of
3 values and an int64 slot of 1). As in Paddle's new IR every slot is dense: a
batch stacks the instances' values into the variable's shape (its first dim is
the batch). Only float32 and int64 variables are accepted, as in Paddle.

An InMemoryDataset loads every instance once (``load_into_memory``) and can
shuffle them; a QueueDataset streams the files each pass. One process holds
all the data, so the global shuffle is the local one.
"""
import subprocess

import numpy as np

from .. import random as _random

_SLOT_TYPES = {np.dtype('float32'): np.float32, np.dtype('int64'): np.int64}


class DatasetBase:
    """Settings shared by the datasets (Paddle's ``fleet.DatasetBase``)."""

    def __init__(self):
        self._filelist = []
        self._batch_size = 1
        self._thread_num = 1
        self._use_var = []
        self._pipe_command = 'cat'
        self._input_type = 0
        self._hdfs = ('', '')
        self._download_cmd = 'cat'

    def init(self, batch_size=1, thread_num=1, use_var=None, pipe_command='cat', input_type=0,
             fs_name='', fs_ugi='', download_cmd='cat'):
        self._set_batch_size(batch_size)
        self._set_thread(thread_num)
        self._set_use_var(use_var or [])
        self._set_pipe_command(pipe_command)
        self._set_input_type(input_type)
        self._set_hdfs_config(fs_name, fs_ugi)
        self._set_download_cmd(download_cmd)

    def set_filelist(self, filelist):
        """The files to read, in order."""
        if isinstance(filelist, str) or not all(isinstance(f, str) for f in filelist):
            raise TypeError("set_filelist: filelist must be a list of file names, got %r"
                            % (filelist,))
        self._filelist = list(filelist)

    # Paddle's setters (its docstrings call them)
    def _set_batch_size(self, batch_size):
        if int(batch_size) < 1:
            raise ValueError("dataset: batch_size must be positive, got %r" % (batch_size,))
        self._batch_size = int(batch_size)

    def _set_thread(self, thread_num):
        self._thread_num = int(thread_num)

    def _set_use_var(self, var_list):
        for v in var_list:
            if np.dtype(v.dtype) not in _SLOT_TYPES:
                raise ValueError("Currently, paddle.distributed.fleet.dataset only supports "
                                 "dtype=float32 and dtype=int64 (variable '%s' is %s)"
                                 % (v.name, v.dtype))
        self._use_var = list(var_list)

    def _set_pipe_command(self, pipe_command):
        self._pipe_command = str(pipe_command)

    def _set_input_type(self, input_type):
        if input_type not in (0, 1):
            raise ValueError("dataset: input_type must be 0 (one instance per line) or 1, got %r"
                             % (input_type,))
        self._input_type = input_type

    def _set_hdfs_config(self, fs_name, fs_ugi):
        self._hdfs = (fs_name, fs_ugi)

    def _set_download_cmd(self, download_cmd):
        self._download_cmd = str(download_cmd)

    def _prepare_to_run(self):
        if not self._use_var:
            raise ValueError("dataset: no use_var; call init(use_var=[...]) with the program's "
                             "data variables first")

    # ---- reading -----------------------------------------------------------------------
    def _instances_of(self, path):
        """The instances of one file, as ``pipe_command`` gives its lines."""
        try:
            with open(path, 'rb') as f:
                done = subprocess.run(self._pipe_command, shell=True, stdin=f,
                                      capture_output=True, check=False)
        except OSError as e:
            raise RuntimeError("dataset: cannot read '%s': %s" % (path, e)) from None
        if done.returncode != 0:
            raise RuntimeError("dataset: pipe_command %r failed on '%s' (exit status %d): %s"
                               % (self._pipe_command, path, done.returncode,
                                  done.stderr.decode(errors='replace').strip()))
        lines = done.stdout.decode().splitlines()
        return [self._parse(line, path, n + 1) for n, line in enumerate(lines) if line.strip()]

    def _parse(self, line, path, lineno):
        fields = line.split()
        values, pos = [], 0
        for v in self._use_var:
            where = "dataset: '%s' line %d, slot '%s'" % (path, lineno, v.name)
            try:
                count = int(fields[pos])
                items = fields[pos + 1:pos + 1 + count]
            except (IndexError, ValueError):
                raise ValueError("%s: expected a value count" % where) from None
            if len(items) != count:
                raise ValueError("%s: %d values announced, %d given" % (where, count, len(items)))
            want = int(np.prod([d for d in v.shape[1:]])) if len(v.shape) > 1 else 1
            if count != want and all(d >= 0 for d in v.shape[1:]):
                raise ValueError("%s: %d values, but the variable's shape %s needs %d"
                                 % (where, count, list(v.shape), want))
            try:
                values.append(np.array(items, _SLOT_TYPES[np.dtype(v.dtype)]))
            except ValueError:
                raise ValueError("%s: values %s are not %s" % (where, items, v.dtype)) from None
            pos += 1 + count
        if pos != len(fields):
            raise ValueError("dataset: '%s' line %d has %d fields after the %d slots of use_var"
                             % (path, lineno, len(fields) - pos, len(self._use_var)))
        return values

    def _batch(self, instances):
        feed = {}
        for k, v in enumerate(self._use_var):
            rows = np.stack([inst[k] for inst in instances])
            feed[v.name] = rows.reshape([len(instances)] + [d if d >= 0 else -1
                                                              for d in v.shape[1:]])
        return feed

    def _batches_of(self, instances):
        for start in range(0, len(instances), self._batch_size):
            yield self._batch(instances[start:start + self._batch_size])

    def _batches(self):
        """The feed dicts of one pass (what ``Executor.train_from_dataset`` runs)."""
        self._prepare_to_run()
        for path in self._filelist:
            yield from self._batches_of(self._instances_of(path))


class InMemoryDataset(DatasetBase):
    """Loads every instance into memory once; shuffles them; passes over them
    as many times as trained (Paddle's ``InMemoryDataset``)."""

    _EXTRA = {'data_feed_type': 'MultiSlotInMemoryDataFeed', 'queue_num': -1, 'merge_size': -1,
              'parse_ins_id': False, 'parse_content': False, 'fleet_send_batch_size': 1024,
              'fleet_send_sleep_seconds': 0, 'fea_eval': False, 'candidate_size': 10000,
              'parse_logkey': False, 'enable_pv_merge': False, 'shuffle_by_uid': False}

    def __init__(self):
        super().__init__()
        self._memory = None
        self._settings = dict(self._EXTRA)
        self._date = None

    def init(self, **kwargs):
        base = {k: kwargs.pop(k) for k in ('batch_size', 'thread_num', 'use_var', 'pipe_command',
                                           'input_type', 'fs_name', 'fs_ugi', 'download_cmd')
                if k in kwargs}
        self._update_extra(kwargs, 'init')
        super().init(**base)

    def _init_distributed_settings(self, **kwargs):
        """Paddle's distributed settings (merge_size, parse_ins_id, parse_content,
        fleet_send_batch_size, fleet_send_sleep_seconds, fea_eval,
        candidate_size): kept; one process reads and shuffles everything."""
        self._update_extra(kwargs, '_init_distributed_settings')

    def update_settings(self, **kwargs):
        """Change some settings after ``init`` (the others stay)."""
        setters = {'batch_size': self._set_batch_size, 'thread_num': self._set_thread,
                   'use_var': self._set_use_var, 'pipe_command': self._set_pipe_command,
                   'input_type': self._set_input_type, 'download_cmd': self._set_download_cmd}
        for k in [k for k in kwargs if k in setters]:
            setters[k](kwargs.pop(k))
        if 'fs_name' in kwargs or 'fs_ugi' in kwargs:
            self._set_hdfs_config(kwargs.pop('fs_name', self._hdfs[0]),
                                  kwargs.pop('fs_ugi', self._hdfs[1]))
        self._update_extra(kwargs, 'update_settings')

    def _update_extra(self, kwargs, api):
        unknown = sorted(set(kwargs) - set(self._EXTRA))
        if unknown:
            raise TypeError("InMemoryDataset.%s: unknown settings %s" % (api, unknown))
        self._settings.update(kwargs)

    def set_date(self, date):
        """The date of the data (``'20211111'``), kept with the dataset."""
        self._date = str(date)

    def load_into_memory(self, is_shuffle=False):
        self._prepare_to_run()
        self._memory = [inst for path in self._filelist for inst in self._instances_of(path)]
        if is_shuffle:
            self.local_shuffle()

    def preload_into_memory(self, thread_num=None):
        self.load_into_memory()

    def wait_preload_done(self):
        return None

    def _loaded(self, api):
        if self._memory is None:
            raise RuntimeError("InMemoryDataset.%s: call load_into_memory() first" % api)
        return self._memory

    def local_shuffle(self):
        """Shuffle the loaded instances (with the framework's generator: seeded runs repeat)."""
        memory = self._loaded('local_shuffle')
        order = _random.generator().permutation(len(memory))
        self._memory = [memory[i] for i in order]

    def global_shuffle(self, fleet=None, thread_num=12):
        """One process holds all instances: the local shuffle."""
        self.local_shuffle()

    def slots_shuffle(self, slots):
        """Shuffle the values of the named slots across instances (feature
        importance evaluation): the other slots keep their order."""
        memory = self._loaded('slots_shuffle')
        names = [v.name for v in self._use_var]
        for name in slots:
            if name not in names:
                raise ValueError("slots_shuffle: '%s' is not a slot of use_var %s" % (name, names))
            k = names.index(name)
            order = _random.generator().permutation(len(memory))
            column = [memory[i][k] for i in order]
            for inst, value in zip(memory, column):
                inst[k] = value

    def release_memory(self):
        self._memory = None

    def get_memory_data_size(self, fleet=None):
        return len(self._loaded('get_memory_data_size'))

    def get_shuffle_data_size(self, fleet=None):
        return len(self._loaded('get_shuffle_data_size'))

    def _batches(self):
        self._prepare_to_run()
        return self._batches_of(self._loaded('train_from_dataset'))


class QueueDataset(DatasetBase):
    """Streams its files on every pass (Paddle's ``QueueDataset``): no shuffling."""

    def init(self, **kwargs):
        super().init(**kwargs)

    def local_shuffle(self):
        raise NotImplementedError("QueueDataset does not support local shuffle, please use "
                                  "InMemoryDataset for local_shuffle")

    def global_shuffle(self, fleet=None):
        raise NotImplementedError("QueueDataset does not support global shuffle, please use "
                                  "InMemoryDataset for global_shuffle")


class FileInstantDataset(QueueDataset):
    """Paddle's file-instant dataset: read as the files come, like QueueDataset."""


__all__ = ['DatasetBase', 'InMemoryDataset', 'QueueDataset', 'FileInstantDataset']
