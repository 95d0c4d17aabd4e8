// FAVOR+ with its products in float32, tf32 and bfloat16 (attention/reduced_precision_favor.hpp) against FAVOR+ in
// long double, bidirectional and causal in chunks: every entry within the derived bound
// (docs/theory.md#favor-in-reduced-precision); and the check's power: bfloat16's numbers held to float32's bound,
// sums that leave keys out, a causal mask one key ahead and no mask at all fail it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/reduced_precision_favor.hpp"
#include "long_double_references.hpp"

using namespace favorlab;

using test::favor_long_double;
using test::kLongDoubleRounding;
using test::outside;
using test::random_precision_head;
using Head = test::PrecisionHead;

TEST_CASE("reduced-precision FAVOR: every output entry within the derived bound", "[attention][precision]") {
  for (ProductPrecision p : {ProductPrecision::float32, ProductPrecision::tf32, ProductPrecision::bfloat16}) {
    for (double input_scale : {0.5, 1.0, 1.6}) {
      const Head h = random_precision_head(96, 16, 64, input_scale, 40 + static_cast<std::uint64_t>(10 * input_scale));
      const Eigen::MatrixXf computed = favor_in_precision(h.q, h.k, h.v, h.w, p);
      const Eigen::MatrixXd reference = favor_long_double(h.q, h.k, h.v, h.w);
      const Eigen::MatrixXd bound = favor_precision_bound(h.q, h.k, h.v, h.w, rounding_of(p));
      const Eigen::MatrixXd reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding);
      double worst = 0;
      INFO(product_precision_name(p) << ", inputs N(0, " << input_scale << "^2)");
      REQUIRE(bound.allFinite());
      CHECK(outside(computed, reference, bound, reference_bound, &worst) == 0);
      INFO("largest error / bound " << worst);
      // The format's rounding took place: tf32's and bfloat16's numbers are not float32's (a reference that skipped
      // it would still pass the bound, so this is what fails then).
      if (p != ProductPrecision::float32)
        CHECK((computed - favor_in_precision(h.q, h.k, h.v, h.w, ProductPrecision::float32)).cwiseAbs().maxCoeff() > 0);
    }
  }
}

TEST_CASE("reduced-precision FAVOR in causal chunks: every output entry within the derived bound",
          "[attention][precision]") {
  for (ProductPrecision p : {ProductPrecision::float32, ProductPrecision::tf32, ProductPrecision::bfloat16}) {
    for (int chunk : {1, 7, 16, 96}) {
      const Head h = random_precision_head(96, 16, 64, 1.3, 60 + static_cast<std::uint64_t>(chunk));
      const Eigen::MatrixXf computed = favor_in_precision(h.q, h.k, h.v, h.w, p, chunk);
      const Eigen::MatrixXd reference = favor_long_double(h.q, h.k, h.v, h.w, true);
      const Eigen::MatrixXd bound = favor_precision_bound(h.q, h.k, h.v, h.w, rounding_of(p), chunk);
      const Eigen::MatrixXd reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding, chunk);
      double worst = 0;
      INFO(product_precision_name(p) << ", chunks of " << chunk);
      REQUIRE(bound.allFinite());
      CHECK(outside(computed, reference, bound, reference_bound, &worst) == 0);
      INFO("largest error / bound " << worst);
      if (p != ProductPrecision::float32) {
        const Eigen::MatrixXf plain = favor_in_precision(h.q, h.k, h.v, h.w, ProductPrecision::float32, chunk);
        CHECK((computed - plain).cwiseAbs().maxCoeff() > 0);  // the format's rounding took place
      }
    }
  }
}

TEST_CASE("reduced-precision FAVOR: the bound's check fails a wrong format and wrong masks", "[attention][precision]") {
  const Head h = random_precision_head(96, 16, 64, 1.0, 7);
  const Eigen::MatrixXd reference = favor_long_double(h.q, h.k, h.v, h.w);
  const Eigen::MatrixXd reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding);
  const auto bound = [&](ProductPrecision p) { return favor_precision_bound(h.q, h.k, h.v, h.w, rounding_of(p)); };
  // bfloat16's products judged by float32's bound (a theory of the wrong format): entries fall outside.
  const Eigen::MatrixXf bf16 = favor_in_precision(h.q, h.k, h.v, h.w, ProductPrecision::bfloat16);
  CHECK(outside(bf16, reference, bound(ProductPrecision::float32), reference_bound) > 0);
  // A sum one key short (a mask off by one position) in float32, and one that stops half way (a mask off by a
  // block) in bfloat16: both outside their format's bound. The bound is a worst case, so bfloat16's check catches
  // only errors of a good part of the output's size.
  const Eigen::Index l = h.k.rows();
  const Eigen::MatrixXf one_short = favor_in_precision(h.q, h.k.topRows(l - 1), h.v.topRows(l - 1), h.w,
                                                       ProductPrecision::float32);
  CHECK(outside(one_short, reference, bound(ProductPrecision::float32), reference_bound) > 0);
  const Eigen::MatrixXf half = favor_in_precision(h.q, h.k.topRows(l / 2), h.v.topRows(l / 2), h.w,
                                                  ProductPrecision::bfloat16);
  CHECK(outside(half, reference, bound(ProductPrecision::bfloat16), reference_bound) > 0);
  // Causal masks: one that lets query i see key i + 1 (query i computed at position i + 1) in float32, and none at
  // all in bfloat16, against the causal reference and bound.
  const Eigen::MatrixXd causal = favor_long_double(h.q, h.k, h.v, h.w, true);
  const auto causal_bound = [&](ProductPrecision p) {
    return favor_precision_bound(h.q, h.k, h.v, h.w, rounding_of(p), 16);
  };
  const Eigen::MatrixXd causal_reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding, 16);
  Eigen::MatrixXf shifted(l, h.q.cols());
  shifted << h.q.topRows(1), h.q.topRows(l - 1);
  const Eigen::MatrixXf ahead = favor_in_precision(shifted, h.k, h.v, h.w, ProductPrecision::float32, 16);
  CHECK(outside(ahead.bottomRows(l - 1), causal.topRows(l - 1), causal_bound(ProductPrecision::float32).topRows(l - 1),
                causal_reference_bound.topRows(l - 1)) > 0);
  CHECK(outside(bf16, causal, causal_bound(ProductPrecision::bfloat16), causal_reference_bound) > 0);
}

TEST_CASE("reduced-precision FAVOR: format names, unit roundoffs and rounding", "[attention][precision]") {
  CHECK(product_precision_name(ProductPrecision::bfloat16) == "bfloat16");
  CHECK(unit_roundoff(ProductPrecision::bfloat16) == 0x1p-8);
  CHECK(unit_roundoff(ProductPrecision::tf32) == 0x1p-11);
  // tf32 keeps 10 fraction bits: 1 + 2^-10 stays, 1 + 2^-11 is a tie that goes to the even 1, 1 + 3·2^-11 to
  // 1 + 2^-9; bfloat16 keeps 7.
  CHECK(round_to_precision(1 + 0x1p-10f, ProductPrecision::tf32) == 1 + 0x1p-10f);
  CHECK(round_to_precision(1 + 0x1p-11f, ProductPrecision::tf32) == 1.0f);
  CHECK(round_to_precision(1 + 3 * 0x1p-11f, ProductPrecision::tf32) == 1 + 0x1p-9f);
  CHECK(round_to_precision(-(1 + 0x1p-12f), ProductPrecision::tf32) == -1.0f);
  CHECK(round_to_precision(1 + 0x1p-8f + 0x1p-20f, ProductPrecision::bfloat16) == 1 + 0x1p-7f);
  CHECK(std::isinf(round_to_precision(std::numeric_limits<float>::max(), ProductPrecision::tf32)));
  CHECK(round_to_precision(1 + 0x1p-20f, ProductPrecision::float32) == 1 + 0x1p-20f);
  const Head h = random_precision_head(8, 4, 6, 1.0, 3);
  CHECK_THROWS_WITH(favor_in_precision(h.q, h.k.leftCols(3), h.v, h.w, ProductPrecision::tf32),
                    Catch::Contains("k is 8 x 3"));
  CHECK_THROWS_WITH(favor_precision_bound(h.q, h.k, h.v.topRows(5), h.w, rounding_of(ProductPrecision::tf32)),
                    Catch::Contains("v is 5 x 8"));
  CHECK_THROWS_WITH(favor_in_precision(h.q.topRows(5), h.k, h.v, h.w, ProductPrecision::tf32, 4),
                    Catch::Contains("causal: q is 5 x 4"));
  CHECK_THROWS_WITH(favor_in_precision(h.q, h.k, h.v, h.w, ProductPrecision::tf32, -1),
                    Catch::Contains("causal chunk must be >= 0"));
}

TEST_CASE("the GPU's rounding model: a bound no tighter than the reference's that still fails a wrong format and "
          "wrong masks",
          "[attention][precision]") {
  // The [cuda] tests (test_product_gemm.cpp) hold the device's outputs to this bound; here, on any machine, its
  // power: the looser model must still see what the reference's bound sees.
  const Head h = random_precision_head(96, 16, 64, 1.0, 7);
  const Eigen::Index l = h.k.rows();
  for (ProductPrecision p : {ProductPrecision::float32, ProductPrecision::tf32, ProductPrecision::bfloat16}) {
    INFO(product_precision_name(p));
    const ProductRounding gpu = gpu_rounding_of(p), model = rounding_of(p);
    CHECK(gpu.operand >= model.operand);
    CHECK(gpu.arithmetic >= model.arithmetic);
    CHECK(gpu.exp >= model.exp);
    for (int chunk : {0, 16}) {
      const Eigen::MatrixXd loose = favor_precision_bound(h.q, h.k, h.v, h.w, gpu, chunk);
      REQUIRE(loose.allFinite());
      CHECK((loose - favor_precision_bound(h.q, h.k, h.v, h.w, model, chunk)).minCoeff() >= 0);
      CHECK(outside(favor_in_precision(h.q, h.k, h.v, h.w, p, chunk),
                    favor_long_double(h.q, h.k, h.v, h.w, chunk > 0), loose,
                    favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding, chunk)) == 0);
    }
  }
  const auto gpu_bound = [&](ProductPrecision p, int chunk) {
    return favor_precision_bound(h.q, h.k, h.v, h.w, gpu_rounding_of(p), chunk);
  };
  const Eigen::MatrixXd reference = favor_long_double(h.q, h.k, h.v, h.w);
  const Eigen::MatrixXd reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding);
  const Eigen::MatrixXf bf16 = favor_in_precision(h.q, h.k, h.v, h.w, ProductPrecision::bfloat16);
  CHECK(outside(bf16, reference, gpu_bound(ProductPrecision::float32, 0), reference_bound) > 0);
  const Eigen::MatrixXf tf32 = favor_in_precision(h.q, h.k, h.v, h.w, ProductPrecision::tf32);
  CHECK(outside(tf32, reference, gpu_bound(ProductPrecision::float32, 0), reference_bound) > 0);
  const Eigen::MatrixXd causal = favor_long_double(h.q, h.k, h.v, h.w, true);
  const Eigen::MatrixXd causal_reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding, 16);
  Eigen::MatrixXf shifted(l, h.q.cols());
  shifted << h.q.topRows(1), h.q.topRows(l - 1);
  const Eigen::MatrixXf ahead = favor_in_precision(shifted, h.k, h.v, h.w, ProductPrecision::float32, 16);
  CHECK(outside(ahead.bottomRows(l - 1), causal.topRows(l - 1), gpu_bound(ProductPrecision::float32, 16).topRows(l - 1),
                causal_reference_bound.topRows(l - 1)) > 0);
  CHECK(outside(bf16, causal, gpu_bound(ProductPrecision::bfloat16, 16), causal_reference_bound) > 0);
}
