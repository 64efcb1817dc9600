"""``run_check``: train a tiny model eagerly and as a static program, as Paddle's
installation check does, and say whether the installation works."""
import numpy as np


def run_check():
    from .. import jit, nn, optimizer
    from ..ops.creation import to_tensor
    from ..random import seed
    print("Running verify framework program ... ")
    seed(0)
    net = nn.Linear(2, 1)
    opt = optimizer.SGD(0.1, parameters=net.parameters())
    x = to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], 'float32'))
    for _ in range(2):
        loss = net(x).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    static_net = jit.to_static(net)
    static_out = static_net(x).numpy()
    eager_out = net.forward.dygraph_function(x).numpy()
    if not np.allclose(static_out, eager_out, rtol=1e-5, atol=1e-6):
        raise RuntimeError("run_check: eager and static results differ (%s vs %s); the "
                           "installation is broken" % (eager_out, static_out))
    print("framework works well on 1 CPU.")
    print("framework is installed successfully! Let's start deep learning with it now.")
