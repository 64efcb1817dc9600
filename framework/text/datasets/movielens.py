"""MovieLens 1M ratings (``ml-1m.zip``: movies.dat, users.dat, ratings.dat).

Each sample is ``(user id, gender, age bucket, job, movie id, category ids,
title word ids, rating)`` as numpy arrays, the rating rescaled to
``2 * stars - 5``. Ratings go to 'test' with probability ``test_ratio``, drawn
from numpy's legacy generator seeded with ``rand_seed`` (the draws Paddle
makes, without touching numpy's global state). Category and title-word ids
number the sorted names (Paddle numbers a Python set, whose order changes
from run to run).
"""
import re
import zipfile

import numpy as np

from ...io import Dataset
from ._files import check_mode, locate

__all__ = ['Movielens', 'MovieInfo', 'UserInfo']

URL = 'https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip'
age_table = [1, 18, 25, 35, 45, 50, 56]
_TITLE = re.compile(r'^(.*)\((\d+)\)$')


class MovieInfo:
    """A movie's id, categories and title (without the year)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict):
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __repr__(self):
        return '<MovieInfo id(%d), title(%s), categories(%s)>' % (self.index, self.title,
                                                                   self.categories)


class UserInfo:
    """A user's id, gender, age bucket (index into ``age_table``) and job id."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == 'M'
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __repr__(self):
        return '<UserInfo id(%d), gender(%s), age(%d), job(%d)>' % (
            self.index, 'M' if self.is_male else 'F', age_table[self.age], self.job_id)


def _lines(package, name, path):
    try:
        with package.open(name) as f:
            return [line.decode('latin-1').strip() for line in f if line.strip()]
    except KeyError:
        raise ValueError("Movielens: the archive %r has no member %r" % (path, name)) from None


class Movielens(Dataset):
    """Args: ``data_file`` (the zip; None looks it up in the data folders),
    ``mode`` ('train' or 'test'), ``test_ratio``, ``rand_seed``, ``download``
    (nothing is downloaded)."""

    def __init__(self, data_file=None, mode='train', test_ratio=0.1, rand_seed=0,
                 download=True):
        self.mode = check_mode('Movielens', mode, ('train', 'test'))
        self.data_file = locate(data_file, URL, 'sentiment', 'Movielens', download=download)
        self.test_ratio = test_ratio
        self.rand_seed = rand_seed
        try:
            package = zipfile.ZipFile(self.data_file)
        except (zipfile.BadZipFile, OSError) as e:
            raise ValueError("Movielens: %r is not a zip archive (%s)" % (self.data_file, e)) \
                from None
        with package:
            self._load_meta_info(package)
            self._load_data(package)

    def _load_meta_info(self, package):
        self.movie_info, self.user_info = {}, {}
        words, categories = set(), set()
        for line in _lines(package, 'ml-1m/movies.dat', self.data_file):
            movie_id, title, cats = line.split('::')
            cats = cats.split('|')
            match = _TITLE.match(title)
            title = match.group(1) if match else title
            self.movie_info[int(movie_id)] = MovieInfo(movie_id, cats, title)
            categories.update(cats)
            words.update(w.lower() for w in title.split())
        self.movie_title_dict = {w: i for i, w in enumerate(sorted(words))}
        self.categories_dict = {c: i for i, c in enumerate(sorted(categories))}
        for line in _lines(package, 'ml-1m/users.dat', self.data_file):
            uid, gender, age, job, _ = line.split('::')
            self.user_info[int(uid)] = UserInfo(uid, gender, age, job)

    def _load_data(self, package):
        draws = np.random.RandomState(self.rand_seed)
        want_test = self.mode == 'test'
        self.data = []
        for line in _lines(package, 'ml-1m/ratings.dat', self.data_file):
            if (draws.random_sample() < self.test_ratio) != want_test:
                continue
            uid, movie_id, rating, _ = line.split('::')
            movie, user = self.movie_info[int(movie_id)], self.user_info[int(uid)]
            self.data.append(user.value()
                             + movie.value(self.categories_dict, self.movie_title_dict)
                             + [[float(rating) * 2 - 5.0]])

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
