"""The orders libstdc++'s ``std::sort``, ``std::partial_sort`` and
``std::nth_element`` leave equal keys in, for ops whose Paddle kernels sort
scores with them (argsort, topk, matrix_nms).

Neither sort is stable: ``std::sort`` is an introsort (median-of-three
quicksort, heapsort past a depth limit, insertion sort for the last 16-element
runs) and ``std::partial_sort`` a heap select and a heap sort. With distinct
scores any sort agrees; with ties (common with hand-set or quantised scores)
only replaying the same moves gives Paddle's indices. Both return the
permutation of ``range(len(scores))`` by descending score, NaN first, as
Paddle's comparators ``isnan(l) && !isnan(r) || l > r`` order them.
"""
import math

import numpy as np

__all__ = ['sort_descending', 'partial_sort_descending', 'top_k_descending',
           'select_descending']

_THRESHOLD = 16        # libstdc++'s _S_threshold


class _Sorter:
    def __init__(self, scores):
        self.s = np.asarray(scores, np.float64).tolist()
        self.perm = list(range(len(self.s)))

    def before(self, a, b):
        """The comparator on two indices: ``a`` sorts before ``b``."""
        x, y = self.s[a], self.s[b]
        return (x != x and y == y) or x > y

    # -- heap (std::__adjust_heap, __make_heap, __heap_select, __sort_heap) --
    def adjust(self, first, hole, length, value):
        p, before = self.perm, self.before
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if before(p[first + child], p[first + child - 1]):
                child -= 1
            p[first + hole] = p[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            p[first + hole] = p[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and before(p[first + parent], value):
            p[first + hole] = p[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        p[first + hole] = value

    def heap_select(self, first, middle, last):
        """The ``middle - first`` best of [first, last) into a heap at first."""
        p, length = self.perm, middle - first
        if length < 1:
            return
        for parent in range((length - 2) // 2, -1, -1):
            self.adjust(first, parent, length, p[first + parent])
        for i in range(middle, last):
            if self.before(p[i], p[first]):
                value, p[i] = p[i], p[first]
                self.adjust(first, 0, length, value)

    def sort_heap(self, first, last):
        p = self.perm
        for end in range(last - first - 1, 0, -1):
            value, p[first + end] = p[first + end], p[first]
            self.adjust(first, 0, end, value)

    def partial_sort(self, first, middle, last):
        self.heap_select(first, middle, last)
        self.sort_heap(first, middle)

    # -- introsort (std::__introsort_loop and its helpers) --
    def move_median_to_first(self, result, a, b, c):
        p, before = self.perm, self.before
        if before(p[a], p[b]):
            pick = b if before(p[b], p[c]) else (c if before(p[a], p[c]) else a)
        else:
            pick = a if before(p[a], p[c]) else (c if before(p[b], p[c]) else b)
        p[result], p[pick] = p[pick], p[result]

    def unguarded_partition(self, first, last, pivot):
        p, before = self.perm, self.before
        while True:
            while before(p[first], p[pivot]):
                first += 1
            last -= 1
            while before(p[pivot], p[last]):
                last -= 1
            if not first < last:
                return first
            p[first], p[last] = p[last], p[first]
            first += 1

    def introsort_loop(self, first, last, depth):
        while last - first > _THRESHOLD:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self.unguarded_partition_pivot(first, last)
            self.introsort_loop(cut, last, depth)
            last = cut

    def linear_insert(self, last):
        p = self.perm
        value = p[last]
        while self.before(value, p[last - 1]):
            p[last] = p[last - 1]
            last -= 1
        p[last] = value

    def insertion_sort(self, first, last):
        p = self.perm
        for i in range(first + 1, last):
            if self.before(p[i], p[first]):          # a new minimum: shift the run up
                value = p[i]
                p[first + 1:i + 1] = p[first:i]
                p[first] = value
            else:
                self.linear_insert(i)

    def unguarded_partition_pivot(self, first, last):
        self.move_median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        return self.unguarded_partition(first + 1, last, first)

    def sort(self, first, last):
        n = last - first
        if n < 2:
            return
        self.introsort_loop(first, last, 2 * int(math.floor(math.log2(n))))
        if n > _THRESHOLD:
            self.insertion_sort(first, first + _THRESHOLD)
            for i in range(first + _THRESHOLD, last):
                self.linear_insert(i)
        else:
            self.insertion_sort(first, last)

    def nth_element(self, first, nth, last):
        """std::nth_element (introselect)."""
        if first == last or nth == last:
            return
        depth = 2 * int(math.floor(math.log2(last - first)))
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                p = self.perm
                p[first], p[nth] = p[nth], p[first]
                return
            depth -= 1
            cut = self.unguarded_partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)


def sort_descending(scores):
    """The indices ``std::sort`` orders ``scores`` into (descending)."""
    sorter = _Sorter(scores)
    sorter.sort(0, len(sorter.perm))
    return np.asarray(sorter.perm, np.int64)


def partial_sort_descending(scores, k):
    """The indices of the ``k`` highest ``scores`` in the order
    ``std::partial_sort(first, first + k, last)`` leaves them."""
    sorter = _Sorter(scores)
    k = max(0, min(int(k), len(sorter.perm)))
    sorter.partial_sort(0, k, len(sorter.perm))
    return np.asarray(sorter.perm[:k], np.int64)


def top_k_descending(scores, k):
    """The indices ``paddle.topk(scores, k)`` gives on CPU: a partial sort when
    k is small (k * 64 < n), else ``nth_element`` at k - 1 and a sort of the
    first k - 1."""
    sorter = _Sorter(scores)
    n = len(sorter.perm)
    k = max(0, min(int(k), n))
    if k == 0:
        return np.zeros(0, np.int64)
    if k * 64 < n:
        sorter.partial_sort(0, k, n)
    else:
        sorter.nth_element(0, k - 1, n)
        sorter.sort(0, k - 1)
    return np.asarray(sorter.perm[:k], np.int64)


def select_descending(scores, k):
    """The first ``k`` indices after ``std::nth_element(first, first + k, last)``
    by descending score: the k best, in no sorted order."""
    sorter = _Sorter(scores)
    n = len(sorter.perm)
    k = max(0, min(int(k), n))
    sorter.nth_element(0, k, n)
    return np.asarray(sorter.perm[:k], np.int64)
