"""LeNet (LeCun et al. 1998) in Paddle's variant for 1x28x28 inputs."""
from ... import nn
from ...ops.manipulation import flatten

__all__ = ['LeNet']


class LeNet(nn.Layer):
    """Two conv/ReLU/max-pool stages (3x3 conv with padding 1 to 6 channels,
    5x5 conv to 16) and three linear layers 400 -> 120 -> 84 -> num_classes
    (no activation between them, as Paddle's). ``num_classes <= 0`` drops
    the linear layers and returns the features ``[N, 16, 5, 5]``.

    >>> import framework as paddle
    >>> paddle.vision.models.LeNet()(paddle.rand([2, 1, 28, 28])).shape
    paddle.Size([2, 10])
    """

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x
