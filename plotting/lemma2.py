"""Lemma 2 of the Performers paper: closed-form MSEs of the softmax-kernel estimators.

Each function takes the norms a = ||x||, b = ||y||, the cosine c of the angle between x and y
(numbers or numpy arrays) and the number m of random features, and returns the MSE for iid
Gaussian projections.
"""
import numpy as np


def softmax_kernel(a, b, c):
    """SM(x, y) = exp(x·y)."""
    return np.exp(a * b * c)


def mse_trig(a, b, c, m):
    """MSE of the trigonometric estimator: exp(a²+b²)·(1 − exp(−||x−y||²))² / (2m)."""
    delta2 = a * a + b * b - 2 * a * b * c
    return np.exp(a * a + b * b) * (-np.expm1(-delta2)) ** 2 / (2 * m)


def mse_positive(a, b, c, m):
    """MSE of the positive estimator: exp(2x·y)·(exp(||x+y||²) − 1) / m."""
    dot = a * b * c
    z2 = a * a + b * b + 2 * dot
    return np.exp(2 * dot) * np.expm1(z2) / m


def mse_hyperbolic(a, b, c, m):
    """MSE of the hyperbolic estimator: ½(1 − exp(−||x+y||²)) times the positive MSE."""
    z2 = a * a + b * b + 2 * a * b * c
    return 0.5 * -np.expm1(-z2) * mse_positive(a, b, c, m)


MSE = {"trig": mse_trig, "positive": mse_positive, "hyperbolic": mse_hyperbolic}
