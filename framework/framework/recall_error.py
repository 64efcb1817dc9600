"""Paddle's "recall" error messages (``paddle.framework.recall_error``): the
strings training loops report a diverged loss with."""
AADIFF_ERROR = "PaddleRecall error(101): AAdiff"
LOSS_NAN_ERROR = "PaddleRecall error(102): LossNan"
SHARDING_PAD_NON_ZERO_ERROR = "PaddleRecall error(103): ShardingPadNonZero"
LOSS_INF_ERROR = "PaddleRecall error(104): LossInf"


def check_naninf(tensor):
    """None when ``tensor`` is finite, else LOSS_NAN_ERROR or LOSS_INF_ERROR."""
    from ..ops.math import isfinite, isnan
    if isfinite(tensor).all().item():
        return None
    return LOSS_NAN_ERROR if isnan(tensor).any().item() else LOSS_INF_ERROR
