// Softmax attention with its products in float32, tf32 and bfloat16 (attention/reduced_precision_exact.hpp) against
// softmax attention in long double, bidirectional and causal: every entry within the derived bound
// (docs/theory.md#exact-attention-in-reduced-precision), with the GPU's looser model too; and the check's power:
// bfloat16's numbers held to float32's bound, a causal mask one key ahead and no mask at all fail it.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "attention/reduced_precision_exact.hpp"
#include "long_double_references.hpp"

using namespace favorlab;

using Head = test::PrecisionHead;
using test::exact_long_double;
using test::kLongDoubleRounding;
using test::outside;
using test::random_precision_head;

TEST_CASE("reduced-precision exact attention: every output entry within the derived bound", "[attention][precision]") {
  for (ProductPrecision p : {ProductPrecision::float32, ProductPrecision::tf32, ProductPrecision::bfloat16})
    for (bool causal : {false, true})
      for (double input_scale : {0.5, 1.0, 2.0}) {
        const Head h = random_precision_head(96, 16, 8, input_scale, 70 + static_cast<std::uint64_t>(10 * input_scale));
        INFO(product_precision_name(p) << (causal ? ", causal" : ", bidirectional") << ", inputs N(0, " << input_scale
                                       << "^2)");
        const Eigen::MatrixXf computed = exact_in_precision(h.q, h.k, h.v, p, causal);
        const Eigen::MatrixXd reference = exact_long_double(h.q, h.k, h.v, causal);
        const Eigen::MatrixXd reference_bound = exact_precision_bound(h.q, h.k, h.v, kLongDoubleRounding, causal);
        const Eigen::MatrixXd bound = exact_precision_bound(h.q, h.k, h.v, rounding_of(p), causal);
        REQUIRE(bound.allFinite());
        double worst = 0;
        CHECK(outside(computed, reference, bound, reference_bound, &worst) == 0);
        INFO("largest error / bound " << worst);
        // The GPU's model (a flash kernel's rescales, truncating sums): no tighter, and the reference within it.
        const Eigen::MatrixXd gpu =
            exact_precision_bound(h.q, h.k, h.v, gpu_rounding_of(p), causal, static_cast<int>(h.k.rows()));
        CHECK((gpu - bound).minCoeff() >= 0);
        if (p != ProductPrecision::float32) {  // the format's rounding took place
          const Eigen::MatrixXf plain = exact_in_precision(h.q, h.k, h.v, ProductPrecision::float32, causal);
          CHECK((computed - plain).cwiseAbs().maxCoeff() > 0);
        }
      }
}

TEST_CASE("reduced-precision exact attention: the bound's check fails a wrong format and wrong masks",
          "[attention][precision]") {
  const Head h = random_precision_head(96, 16, 8, 1.0, 9);
  const Eigen::Index l = h.k.rows();
  const int rescales = static_cast<int>(l);
  for (bool gpu_model : {false, true}) {
    INFO((gpu_model ? "the GPU's model" : "the reference's model"));
    const auto bound = [&](ProductPrecision p, bool causal) {
      return exact_precision_bound(h.q, h.k, h.v, gpu_model ? gpu_rounding_of(p) : rounding_of(p), causal,
                                   gpu_model ? rescales : 0);
    };
    const Eigen::MatrixXd reference = exact_long_double(h.q, h.k, h.v);
    const Eigen::MatrixXd reference_bound = exact_precision_bound(h.q, h.k, h.v, kLongDoubleRounding);
    // bfloat16's numbers held to float32's bound.
    const Eigen::MatrixXf bf16 = exact_in_precision(h.q, h.k, h.v, ProductPrecision::bfloat16);
    CHECK(outside(bf16, reference, bound(ProductPrecision::float32, false), reference_bound) > 0);
    // A causal mask one key ahead (query i computed at position i + 1) in float32, and none at all in bfloat16.
    const Eigen::MatrixXd causal = exact_long_double(h.q, h.k, h.v, true);
    const Eigen::MatrixXd causal_reference_bound = exact_precision_bound(h.q, h.k, h.v, kLongDoubleRounding, true);
    Eigen::MatrixXf shifted(l, h.q.cols());
    shifted << h.q.topRows(1), h.q.topRows(l - 1);
    const Eigen::MatrixXf ahead = exact_in_precision(shifted, h.k, h.v, ProductPrecision::float32, true);
    CHECK(outside(ahead.bottomRows(l - 1), causal.topRows(l - 1), bound(ProductPrecision::float32, true).topRows(l - 1),
                  causal_reference_bound.topRows(l - 1)) > 0);
    CHECK(outside(bf16, causal, bound(ProductPrecision::bfloat16, true), causal_reference_bound) > 0);
  }
}

TEST_CASE("reduced-precision exact attention: shapes are checked and named", "[attention][precision]") {
  const Head h = random_precision_head(8, 4, 6, 1.0, 3);
  CHECK_THROWS_WITH(exact_in_precision(h.q, h.k.leftCols(3), h.v, ProductPrecision::bfloat16),
                    Catch::Contains("k is 8 x 3"));
  CHECK_THROWS_WITH(exact_precision_bound(h.q, h.k, h.v.topRows(5), rounding_of(ProductPrecision::bfloat16)),
                    Catch::Contains("v is 5 x 8"));
  CHECK_THROWS_WITH(exact_in_precision(h.q.topRows(5), h.k, h.v, ProductPrecision::bfloat16, true),
                    Catch::Contains("causal: q is 5 x 4"));
  CHECK_THROWS_WITH(exact_precision_bound(h.q, h.k, h.v, rounding_of(ProductPrecision::bfloat16), false, -1),
                    Catch::Contains("rescales must be >= 0"));
}
