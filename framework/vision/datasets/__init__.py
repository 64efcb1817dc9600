"""Vision data sets: MNIST / FashionMNIST from local files, and Digits (scikit-learn's
8x8 digits) which works offline out of the box."""
from .digits import Digits
from .mnist import MNIST, FashionMNIST

__all__ = ['MNIST', 'FashionMNIST', 'Digits']
