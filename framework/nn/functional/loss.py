"""Losses (Paddle's ``paddle.nn.functional.loss``)."""
from ...ops.loss import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: F401
                         cross_entropy, hinge_embedding_loss, kl_div, l1_loss,
                         margin_ranking_loss, mse_loss, nll_loss, sigmoid_focal_loss,
                         smooth_l1_loss, softmax_with_cross_entropy, square_error_cost)

__all__ = ['binary_cross_entropy', 'binary_cross_entropy_with_logits', 'cross_entropy',
           'hinge_embedding_loss', 'kl_div', 'l1_loss', 'margin_ranking_loss', 'mse_loss',
           'nll_loss', 'sigmoid_focal_loss', 'smooth_l1_loss', 'softmax_with_cross_entropy',
           'square_error_cost']
