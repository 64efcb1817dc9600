"""``framework.Size`` (Paddle 3's ``paddle.Size``): the type of ``x.shape``.

A list of ints, as Paddle 3.3.1's is, so everything that works on a shape
list keeps working (``x.shape == [2, 3]``, ``x.shape[0]``, ``list(x.shape)``,
item assignment); it also equals the tuple of its values, slicing and
concatenation (either side) keep the type, and ``numel()`` gives the element
count. It prints as Paddle's does: ``paddle.Size([2, 3])``.
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

    def __radd__(self, other):
        return Size(list(other) + list(self))

    def __eq__(self, other):
        if isinstance(other, tuple):
            other = list(other)
        return list.__eq__(self, other)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None        # a list: mutable

    def __repr__(self):
        return 'paddle.Size(%s)' % list.__repr__(self)

    __str__ = __repr__
