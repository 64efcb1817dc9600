"""A PyTorch resnet18 with Paddle's parameter names, for the accuracy figure.

torchvision is not needed: the net is Paddle's ``vision.models.resnet18``
(BasicBlocks, 7x7 stem, max-pool, global average pool, fc) written in torch,
with modules named as Paddle names them so that a Paddle state dict loads
directly (``load_paddle_state``).
"""
import torch
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                                            nn.BatchNorm2d(planes))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return torch.relu(out + identity)


class ResNet18(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        widths = [64, 128, 256, 512]
        inplanes = 64
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            setattr(self, 'layer%d' % (i + 1),
                    nn.Sequential(BasicBlock(inplanes, w, stride), BasicBlock(w, w, 1)))
            inplanes = w
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(x.mean((2, 3)), 1))


def paddle_name(torch_name):
    return torch_name.replace('running_mean', '_mean').replace('running_var', '_variance')


def load_paddle_state(net, state):
    """Load a Paddle-named state dict of numpy arrays (Linear weights [in, out])."""
    with torch.no_grad():
        for name, t in net.state_dict().items():
            if name.endswith('num_batches_tracked'):
                continue
            v = state[paddle_name(name)]
            t.copy_(torch.from_numpy(v.T.copy() if name == 'fc.weight' else v))
