"""Vision data sets read from local files in their standard formats (nothing
is downloaded; see ``framework.utils.dataset_files``): MNIST, FashionMNIST,
Cifar10/100, Flowers, VOC2012, image folders, and Digits (scikit-learn's 8x8
digits) which works offline out of the box."""
from .cifar import Cifar10, Cifar100
from .digits import Digits
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .voc2012 import VOC2012

__all__ = ['DatasetFolder', 'ImageFolder', 'MNIST', 'FashionMNIST', 'Flowers', 'Cifar10',
           'Cifar100', 'VOC2012', 'Digits']
