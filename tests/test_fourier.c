static const char help[] = "Checks the Fourier and order module against signals with known coefficients.\n";

/*
  1. Rectangular window, whole interval [0, T], harmonics on bins: y = sum a_k cos(w_k t) + b_k sin(w_k t)
     with w_k = 2 pi k/T is recovered to 1e-9 (the trapezoidal rule is exact for trigonometric
     polynomials of degree below the number of steps), and empty bins read 0.
  2. Hann window over L = 1 s starting at t_l = 0.3 s, components on bins at least 2 apart (>= 2 periods
     in the window): with g_c = 2 the coefficients equal a_k, b_k to 1e-6.
  3. Hann window of exactly one period of the fundamental, y = sum_i a_i cos(2 pi i tau/L): leakage gives
     A_k = g_c/4 (-a_{k-1} + 2 a_k - a_{k+1}), i.e. 1/4(...) without amplitude correction (g_c = 1) and
     1/2(...) with g_c = 2, to 1e-9.
  5. Rectangular window inside the sampled interval, [0.2, 0.7] s of [0, 1] s, a signal off the bins: the coefficients
     against their closed form converge at second order (the error falls at least 3x per halving of the step, where
     the window's edge nodes at full weight fell 2x or not at all), for the trapezoidal rule with the edges on step
     points and between them, the one-stage midpoint rule (nodes inside the steps) and Simpson's rule (stages at c = 0,
     1/2, 1: two nodes at every step point).
  4. Orders over a linear run-up: each window is centred where n(t) = n and spans +-2 revolutions; a
     signal cos(o theta(t)) with the crank angle theta(t) = 2 pi int n dt has order-o amplitude 1 up to the
     chirp inside the window (below 1e-3 at this ramp rate, 125 rpm/s).
*/
#include "mbstest.h"
#include "core/coreimpl.h"

#define NSTEPS 4000

static PetscErrorCode Sample(PetscReal t0, PetscReal t1, PetscInt nsteps, PetscReal **t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nsteps + 1, t));
  for (PetscInt i = 0; i <= nsteps; i++) (*t)[i] = t0 + (t1 - t0) * i / nsteps;
  PetscFunctionReturn(0);
}

/* The coefficients by the trapezoidal rule on the samples (Crank-Nicolson's quadrature) */
static PetscErrorCode ComputeTrapezoid(MbsFourier fourier, PetscInt n, const PetscReal t[], const PetscReal y[])
{
  PetscReal *weight;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &weight));
  PetscCall(MbsQuadratureWeights(n, t, 0.5, weight));
  PetscCall(MbsFourierCompute(fourier, n, t, weight, y));
  PetscCall(PetscFree(weight));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRectangular(MbsTest *test)
{
  const PetscReal  T = 2.0, a[3] = {0.7, -0.2, 1e-3}, b[3] = {0.3, 0.5, -2e-3};
  const PetscInt   k[3] = {3, 7, 12};
  PetscReal       *t, *y;
  const PetscReal *A, *B;
  MbsFourier       fourier;
  char             what[64];

  PetscFunctionBeginUser;
  PetscCall(Sample(0, T, NSTEPS, &t));
  PetscCall(PetscMalloc1(NSTEPS + 1, &y));
  for (PetscInt i = 0; i <= NSTEPS; i++) {
    y[i] = 0;
    for (PetscInt c = 0; c < 3; c++) y[i] += a[c] * PetscCosReal(2 * PETSC_PI * k[c] * t[i] / T) + b[c] * PetscSinReal(2 * PETSC_PI * k[c] * t[i] / T);
  }
  PetscCall(MbsFourierCreate(&fourier));
  PetscCall(MbsFourierAddHarmonics(fourier, "rectangular", 0, T, 0, 20 / T));
  PetscCall(ComputeTrapezoid(fourier, NSTEPS + 1, t, y));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  for (PetscInt j = 0; j < 20; j++) { /* coefficient j is harmonic j + 1 */
    PetscReal want_a = 0, want_b = 0;

    for (PetscInt c = 0; c < 3; c++)
      if (k[c] == j + 1) {
        want_a = a[c];
        want_b = b[c];
      }
    PetscCall(PetscSNPrintf(what, sizeof(what), "rectangular A_%" PetscInt_FMT, j + 1));
    PetscCall(MbsTestClose(test, what, A[j], want_a, 1e-9, 1e-12));
    PetscCall(PetscSNPrintf(what, sizeof(what), "rectangular B_%" PetscInt_FMT, j + 1));
    PetscCall(MbsTestClose(test, what, B[j], want_b, 1e-9, 1e-12));
  }
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(y));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestHann(MbsTest *test)
{
  const PetscReal  t_l = 0.3, L = 1.0, a[2] = {0.4, -1.5}, b[2] = {0.8, 0.25};
  const PetscInt   k[2] = {4, 9};
  PetscReal       *t, *y;
  const PetscReal *A, *B;
  MbsFourier       fourier;
  char             what[64];

  PetscFunctionBeginUser;
  /* the signal runs beyond the window on both sides: the window must cut it */
  PetscCall(Sample(0, 2, NSTEPS, &t));
  PetscCall(PetscMalloc1(NSTEPS + 1, &y));
  for (PetscInt i = 0; i <= NSTEPS; i++) {
    PetscReal tau = t[i] - t_l;

    y[i] = 0;
    for (PetscInt c = 0; c < 2; c++) y[i] += a[c] * PetscCosReal(2 * PETSC_PI * k[c] * tau / L) + b[c] * PetscSinReal(2 * PETSC_PI * k[c] * tau / L);
  }
  PetscCall(MbsFourierCreate(&fourier));
  for (PetscInt c = 0; c < 2; c++) PetscCall(MbsFourierAddCoefficient(fourier, "hann", t_l, t_l + L, k[c] / L));
  PetscCall(ComputeTrapezoid(fourier, NSTEPS + 1, t, y));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  for (PetscInt c = 0; c < 2; c++) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "Hann g_c=2 A at bin %" PetscInt_FMT, k[c]));
    PetscCall(MbsTestClose(test, what, A[c], a[c], 1e-6, 0));
    PetscCall(PetscSNPrintf(what, sizeof(what), "Hann g_c=2 B at bin %" PetscInt_FMT, k[c]));
    PetscCall(MbsTestClose(test, what, B[c], b[c], 1e-6, 0));
  }
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(y));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestLeakage(MbsTest *test, PetscReal gain)
{
  const PetscReal  L = 0.5, a[8] = {0, 0.9, -0.4, 1.3, 0.2, -0.7, 0.35, 0}; /* a_0 = a_7 = 0 */
  PetscReal       *t, *y;
  const PetscReal *A;
  MbsFourier       fourier;
  char             what[64];

  PetscFunctionBeginUser;
  PetscCall(Sample(0, L, NSTEPS, &t));
  PetscCall(PetscMalloc1(NSTEPS + 1, &y));
  for (PetscInt i = 0; i <= NSTEPS; i++) {
    y[i] = 0;
    for (PetscInt c = 1; c < 7; c++) y[i] += a[c] * PetscCosReal(2 * PETSC_PI * c * t[i] / L);
  }
  PetscCall(MbsFourierCreate(&fourier));
  PetscCall(MbsFourierSetWindowGain(fourier, gain));
  PetscCall(MbsFourierAddHarmonics(fourier, "hann", 0, L, 2 / L, 6 / L));
  PetscCall(ComputeTrapezoid(fourier, NSTEPS + 1, t, y));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, NULL));
  for (PetscInt kk = 2; kk <= 6; kk++) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "one-period Hann g_c=%g leakage A_%" PetscInt_FMT, (double)gain, kk));
    PetscCall(MbsTestClose(test, what, A[kk - 2], gain / 4 * (-a[kk - 1] + 2 * a[kk] - a[kk + 1]), 1e-9, 1e-12));
  }
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(y));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestOrders(MbsTest *test)
{
  const PetscReal t0 = 1.0, t1 = 41.0, n0 = 1000, n1 = 6000, speeds[3] = {1500, 3000, 5500}, orders[2] = {2, 6};
  const PetscInt  nsteps = 400000;
  MbsSpeedProfile ramp   = {
      .ramp_rpm = {n0, n1},
        .ramp_time = {t0, t1}
  };
  PetscReal       *t, *y;
  const PetscReal *A, *B, *omega;
  MbsFourier       fourier;
  char             what[96];

  PetscFunctionBeginUser;
  PetscCall(Sample(t0, t1, nsteps, &t));
  PetscCall(PetscMalloc1(nsteps + 1, &y));
  PetscCall(MbsFourierCreate(&fourier));
  PetscCall(MbsFourierAddOrders(fourier, "hann", &ramp, MBS_ORDER_DOMAIN_TIME, 2, orders, 3, speeds));
  PetscCall(MbsFourierGetFrequencies(fourier, &omega));
  for (PetscInt s = 0; s < 3; s++) {
    PetscReal n = speeds[s] / 60, t_k, t_l, t_u;

    PetscCall(MbsFourierWindowCentre(t0, t1, n0, n1, speeds[s], &t_k));
    PetscCall(PetscSNPrintf(what, sizeof(what), "run-up speed at window centre %g rpm", (double)speeds[s]));
    PetscCall(MbsTestClose(test, what, n0 + (n1 - n0) * (t_k - t0) / (t1 - t0), speeds[s], 1e-12, 0));
    for (PetscInt o = 0; o < 2; o++) {
      PetscCall(MbsFourierGetWindow(fourier, s * 2 + o, &t_l, &t_u));
      PetscCall(PetscSNPrintf(what, sizeof(what), "window start, %g rpm order %g", (double)speeds[s], (double)orders[o]));
      PetscCall(MbsTestClose(test, what, t_l, t_k - 2 / n, 1e-12, 0));
      PetscCall(PetscSNPrintf(what, sizeof(what), "window end, %g rpm order %g", (double)speeds[s], (double)orders[o]));
      PetscCall(MbsTestClose(test, what, t_u, t_k + 2 / n, 1e-12, 0));
      PetscCall(PetscSNPrintf(what, sizeof(what), "order frequency, %g rpm order %g", (double)speeds[s], (double)orders[o]));
      PetscCall(MbsTestClose(test, what, omega[s * 2 + o], 2 * PETSC_PI * orders[o] * n, 1e-12, 0));
    }
  }
  for (PetscInt o = 0; o < 2; o++) {
    for (PetscInt i = 0; i <= nsteps; i++) {
      PetscReal tt = t[i] - t0, theta = 2 * PETSC_PI * (n0 / 60 * tt + 0.5 * (n1 - n0) / 60 / (t1 - t0) * tt * tt);

      y[i] = PetscCosReal(orders[o] * theta);
    }
    PetscCall(ComputeTrapezoid(fourier, nsteps + 1, t, y));
    PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
    for (PetscInt s = 0; s < 3; s++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "order %g amplitude at %g rpm", (double)orders[o], (double)speeds[s]));
      PetscCall(MbsTestClose(test, what, PetscSqrtReal(PetscSqr(A[s * 2 + o]) + PetscSqr(B[s * 2 + o])), 1.0, 2e-3, 0));
    }
  }
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(y));
  PetscFunctionReturn(0);
}

/*
  Angle-domain orders of a run-up that is no straight line: the trend n(t) = 1000 + 5000 (t/4)^1.5 rpm with a 1 %
  ripple at order 2, as a table of 0.1 ms rows; a signal of orders 2 and 6 with constant amplitudes and phases,
  sampled at 5 kHz, must give them back whatever the speed does in the window (the time domain smears them), and
  each window spans four revolutions centred where the revolution-mean speed passes the speed.
*/
static PetscErrorCode TestAngleOrders(MbsTest *test)
{
  const PetscReal  T = 4, speeds[3] = {1500, 3000, 5500}, orders[2] = {2, 6}, amplitude[2] = {1.0, 0.3}, phase[2] = {0.4, -1.1}, fs = 5000;
  const PetscInt   nrows = 40001, nsamples = (PetscInt)(T * fs) + 1;
  PetscReal       *rows_t, *rows_rpm, *t, *c, *y;
  const PetscReal *A, *B;
  MbsSpeedProfile  profile = {
     .ramp_time = {0, 1}
  };
  MbsFourier fourier;
  char       what[96];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(nrows, &rows_t, nrows, &rows_rpm));
  for (PetscInt i = 0; i < nrows; i++) {
    PetscReal tt = T * i / (nrows - 1), trend = 1000 + 5000 * PetscPowReal(tt / T, 1.5), trend_angle = 2 * PETSC_PI / 60 * (1000 * tt + 5000 * T / 2.5 * PetscPowReal(tt / T, 2.5));

    rows_t[i]   = tt;
    rows_rpm[i] = trend * (1 + 0.01 * PetscSinReal(2 * trend_angle));
  }
  PetscCall(MbsSpeedProfileSetTable(&profile, nrows, rows_t, rows_rpm, NULL, "non-linear test run-up"));
  PetscCall(MbsFourierCreate(&fourier));
  PetscCall(MbsFourierAddOrders(fourier, "hann", &profile, MBS_ORDER_DOMAIN_ANGLE, 2, orders, 3, speeds));
  PetscCall(PetscMalloc3(nsamples, &t, nsamples, &c, nsamples, &y));
  for (PetscInt i = 0; i < nsamples; i++) {
    PetscReal phi, n;

    t[i] = i / fs;
    MbsSpeedProfileAngle(&profile, t[i], &phi, &n);
    y[i] = 0;
    for (PetscInt o = 0; o < 2; o++) y[i] += amplitude[o] * PetscCosReal(orders[o] * phi + phase[o]);
  }
  PetscCall(MbsQuadratureWeights(nsamples, t, 0.5, c));
  PetscCall(MbsFourierCompute(fourier, nsamples, t, c, y));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  for (PetscInt s = 0; s < 3; s++) {
    PetscReal t_l, t_u, phi_l, phi_u, n, t_before, t_after;

    PetscCall(MbsFourierGetWindow(fourier, 2 * s, &t_l, &t_u));
    MbsSpeedProfileAngle(&profile, t_l, &phi_l, &n);
    MbsSpeedProfileAngle(&profile, t_u, &phi_u, &n);
    PetscCall(PetscSNPrintf(what, sizeof(what), "window of four revolutions at %g rpm [rad]", (double)speeds[s]));
    PetscCall(MbsTestClose(test, what, phi_u - phi_l, 8 * PETSC_PI, 1e-12, 0));
    PetscCall(MbsSpeedProfileTime(&profile, phi_l + 3 * PETSC_PI, &t_before));
    PetscCall(MbsSpeedProfileTime(&profile, phi_l + 5 * PETSC_PI, &t_after));
    PetscCall(PetscSNPrintf(what, sizeof(what), "revolution-mean speed at the centre of %g rpm", (double)speeds[s]));
    PetscCall(MbsTestClose(test, what, 60 / (t_after - t_before), speeds[s], 1e-10, 0));
    for (PetscInt o = 0; o < 2; o++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "angle-domain order %g amplitude at %g rpm", (double)orders[o], (double)speeds[s]));
      PetscCall(MbsTestClose(test, what, PetscSqrtReal(PetscSqr(A[2 * s + o]) + PetscSqr(B[2 * s + o])), amplitude[o], 1e-6, 0));
      PetscCall(PetscSNPrintf(what, sizeof(what), "angle-domain order %g phase at %g rpm", (double)orders[o], (double)speeds[s]));
      PetscCall(MbsTestClose(test, what, PetscAtan2Real(-B[2 * s + o], A[2 * s + o]), phase[o], 0, 1e-6));
    }
  }
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(MbsSpeedProfileReset(&profile));
  PetscCall(PetscFree3(t, c, y));
  PetscCall(PetscFree2(rows_t, rows_rpm));
  PetscFunctionReturn(0);
}

/* int_{t_l}^{t_u} cos(alpha t + beta) dt, and with sin */
static PetscReal IntegralCos(PetscReal alpha, PetscReal beta, PetscReal t_l, PetscReal t_u)
{
  return (PetscSinReal(alpha * t_u + beta) - PetscSinReal(alpha * t_l + beta)) / alpha;
}

static PetscReal IntegralSin(PetscReal alpha, PetscReal beta, PetscReal t_l, PetscReal t_u)
{
  return -(PetscCosReal(alpha * t_u + beta) - PetscCosReal(alpha * t_l + beta)) / alpha;
}

typedef enum {
  RULE_TRAPEZOID,
  RULE_MIDPOINT,
  RULE_SIMPSON
} InteriorRule;

/* Step points over [0, 1] (mapped: t = u + 0.03 sin(2 pi u), so that the window's edges cut steps) and the rule's nodes */
static PetscErrorCode InteriorSignal(InteriorRule rule, PetscBool mapped, PetscInt nsteps, PetscReal (*f)(PetscReal), MbsSignal *signal)
{
  const PetscReal c_rule[3][3] =
    {
      {0,   1,   0},
      {0.5, 0,   0},
      {0,   0.5, 1}
  },
                  b_rule[3][3] = {{0.5, 0.5, 0}, {1, 0, 0}, {1.0 / 6, 4.0 / 6, 1.0 / 6}};
  const PetscInt nstage[3]     = {2, 1, 3};

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(signal, sizeof(*signal)));
  signal->n = nsteps + 1;
  PetscCall(PetscMalloc2(signal->n, &signal->t, signal->n, &signal->y));
  for (PetscInt i = 0; i <= nsteps; i++) {
    PetscReal u = (PetscReal)i / nsteps;

    signal->t[i] = mapped ? u + 0.03 * PetscSinReal(2 * PETSC_PI * u) : u;
    signal->y[i] = f(signal->t[i]);
  }
  signal->nq = nsteps * nstage[rule];
  PetscCall(PetscMalloc3(signal->nq, &signal->tq, signal->nq, &signal->yq, signal->nq, &signal->wq));
  for (PetscInt i = 0; i < nsteps; i++) {
    PetscReal h = signal->t[i + 1] - signal->t[i];

    for (PetscInt k = 0; k < nstage[rule]; k++) {
      PetscInt q = i * nstage[rule] + k;

      signal->tq[q] = signal->t[i] + c_rule[rule][k] * h;
      signal->yq[q] = f(signal->tq[q]);
      signal->wq[q] = b_rule[rule][k] * h;
    }
  }
  PetscFunctionReturn(0);
}

static const PetscReal interior_a[2] = {0.8, 0.3}, interior_f[2] = {7.3, 13.1}, interior_phase[2] = {0.4, -1.2};

static PetscReal InteriorY(PetscReal t)
{
  return interior_a[0] * PetscCosReal(2 * PETSC_PI * interior_f[0] * t + interior_phase[0]) + interior_a[1] * PetscCosReal(2 * PETSC_PI * interior_f[1] * t + interior_phase[1]);
}

static PetscErrorCode TestInteriorWindow(MbsTest *test)
{
  const PetscReal t_l = 0.2, t_u = 0.7, L = t_u - t_l;
  const char     *rule_name[3] = {"trapezoid", "midpoint", "Simpson"};
  char            what[128];

  PetscFunctionBeginUser;
  for (PetscInt variant = 0; variant < 4; variant++) {
    InteriorRule rule   = variant < 2 ? RULE_TRAPEZOID : (InteriorRule)(variant - 1);
    PetscBool    mapped = (PetscBool)(variant > 0);
    PetscReal    error[3];

    for (PetscInt level = 0; level < 3; level++) {
      MbsFourier       fourier;
      MbsSignal        signal;
      const PetscReal *A, *B, *omega;
      PetscInt         ncoef;

      PetscCall(InteriorSignal(rule, mapped, 200 << level, InteriorY, &signal));
      PetscCall(MbsFourierCreate(&fourier));
      PetscCall(MbsFourierAddHarmonics(fourier, "rectangular", t_l, t_u, 1, 10));
      PetscCall(MbsFourierComputeSignal(fourier, &signal));
      PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
      PetscCall(MbsFourierGetFrequencies(fourier, &omega));
      PetscCall(MbsFourierGetNumCoefficients(fourier, &ncoef));
      error[level] = 0;
      for (PetscInt j = 0; j < ncoef; j++) { /* cos(W t + p) cos(w (t - t_l)) = (cos((W + w) t + p - w t_l) + cos((W - w) t + p + w t_l))/2 */
        PetscReal want_a = 0, want_b = 0, w = omega[j];

        for (PetscInt c = 0; c < 2; c++) {
          PetscReal W = 2 * PETSC_PI * interior_f[c], p = interior_phase[c];

          want_a += interior_a[c] / L * (IntegralCos(W + w, p - w * t_l, t_l, t_u) + IntegralCos(W - w, p + w * t_l, t_l, t_u));
          want_b += interior_a[c] / L * (IntegralSin(w + W, p - w * t_l, t_l, t_u) + IntegralSin(w - W, -p - w * t_l, t_l, t_u));
        }
        error[level] = PetscMax(error[level], PetscAbsReal(A[j] - want_a) + PetscAbsReal(B[j] - want_b));
      }
      PetscCall(MbsFourierDestroy(&fourier));
      PetscCall(MbsSignalDestroy(&signal));
    }
    for (PetscInt level = 1; level < 3; level++) {
      PetscCall(PetscSNPrintf(what, sizeof(what), "interior window, %s rule%s: error falls >= 3x from %d to %d steps (%.2e -> %.2e)", rule_name[rule], mapped ? " (edges between steps)" : "", 100 << level, 200 << level, (double)error[level - 1], (double)error[level]));
      PetscCall(MbsTestTrue(test, what, (PetscBool)(error[level] <= error[level - 1] / 3)));
    }
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsTest test = {0, 0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(TestRectangular(&test));
  PetscCall(TestHann(&test));
  PetscCall(TestLeakage(&test, 1.0));
  PetscCall(TestLeakage(&test, 2.0));
  PetscCall(TestOrders(&test));
  PetscCall(TestAngleOrders(&test));
  PetscCall(TestInteriorWindow(&test));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
