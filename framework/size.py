"""``framework.Size`` (Paddle 3's ``paddle.Size``): the type of ``x.shape``.

A list of ints, so everything that works on a shape list keeps working
(``x.shape == [2, 3]``, ``x.shape[0]``, ``list(x.shape)``); slicing and
concatenation keep the type, and ``numel()`` gives the element count.

It prints as the list it is (``[2, 3]``) where Paddle prints
``paddle.Size([2, 3])``: shapes are printed all over code, logs and
docstrings written against list shapes, and the values are what matter.
"""


class Size(list):
    __slots__ = ()

    def numel(self):
        """The number of elements a tensor of this shape holds."""
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, index):
        item = list.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(list.__add__(self, list(other)))

    def __mul__(self, n):
        return Size(list.__mul__(self, n))

    __rmul__ = __mul__
