#pragma once
// The bare products of bidirectional FAVOR, the floor its forward time is judged against (the "gemm" method of
// `favorlab speed`): per head, in FAVOR's own structure (blocks of 512 rows, heads in parallel when there are at least
// as many as threads, otherwise row blocks), the four GEMMs
//   key block b:   P_b = K_b Wᵀ  (rows×d · d×m),   S_b = P_bᵀ [V_b, 1]  (m×rows · rows×(dv+1)),  S = Σ_b S_b
//   query block b: R_b = Q_b Wᵀ,                   out_b = R_b S         (rows×m · m×(dv+1))
// with nothing else: no feature map (exp), no scaling, no stabilizer, no renormalization. The output (L×(dv+1) per
// head, meaningless numbers) is returned so the work stays observable.
#include <vector>

#include "features/feature_maps.hpp"

namespace favorlab {

template <class T>
std::vector<Matrix<T>> favor_bare_products(const std::vector<Matrix<T>>& q, const std::vector<Matrix<T>>& k,
                                           const std::vector<Matrix<T>>& v, const Matrix<T>& w, int threads);

// Floating-point operations of those products for one head (2 per multiply-add).
double favor_bare_product_flops(double lq, double lk, double d, double m, double dv);

}  // namespace favorlab
