static const char help[] = "Checks the modes of the linearised models (SLEPc PEP) against closed forms and a dense solve of the companion form.\n"
                           "Options: -model NAME, -check companion|oscillator2|engine4|chain|twin|dae (-twin_model NAME), and any -pep_* / -st_* option.\n";

/*
  -check companion (any model): every eigenvalue the PEP returns equals one of the generalised eigenproblem
    [0 I; -K -C] z = lambda [I 0; 0 M] z, solved densely by SLEPc's EPSLAPACK, to 1e-8 relative; with the default
    dense PEP all 2 nq eigenvalues are there.
  -check oscillator2: with proportional damping D = beta K (d_i = beta c_i), m1 = m2 = m, the closed form
    w^2 = (c1 + 2 c2 -+ sqrt((c1 + 2 c2)^2 - 4 c1 c2)) / 2m, zeta = beta w / 2, to 1e-8.
  -check engine4: the massless Maxwell nodes of engine4 obey first-order equations C_nn q_n' = -(C_nm v + K_nm q + K_nn q_n),
    eliminated exactly into the 18-dimensional first-order system of V1 (engine4.md section 12), solved densely: the
    PEP gives its 8 oscillatory modes and 2 real eigenvalues to 1e-7 (the spec asks 1e-6), sets the 2 infinite ones aside, and (with
    -expect_hz f1,..,f8 -expect_real r1,r2) matches the spec's rough values to -expect_rtol.
  -check twin: a model described in a file (-model_file) has the modes of the hand-coded model -twin_model at its
    defaults: every finite eigenvalue to 1e-10 of the largest modulus, frequencies and damping ratios to 1e-10.
  -check dae: a DAE model's linearisation (constraints eliminated by its null space) against the finite-difference
    linearisation of its residual at the initial state: A = dF/dU and B = dF/dU' by 4th-order central differences, whose
    pencil (A + lambda B) x = 0 has the model's modes as its finite eigenvalues (the rest are infinite: the algebraic
    states). With T = (A + sigma B)^-1 B, an eigenvalue nu of T is lambda = sigma - 1/nu, and the infinite ones are
    nu = 0. Each PEP eigenvalue must be one of them to -dae_rtol (1e-8) of its modulus, and there must be exactly 2 nq
    finite ones. The excitation must vanish at t0 (e.g. an engine-order load at -stationary_rpm 1e-100, theta = 0).
  -check chain: cart_pendulum_chain at its true parameters has the spec's modes (section 9): swing 0.170 Hz, bending
    1.36 and 3.90 Hz (the spec's rounding: 0.5 %), one rigid-body zero and the real eigenvalue near -d_c/M_xx.
*/
#include "mbstest.h"
#include <slepceps.h>
#include "models/modelimpl.h"

#define IJ(A, i, j, rows) (A)[(i) + (j) * (rows)]

/* Every eigenvalue of A x = lambda B x (B NULL: the standard problem) by SLEPc's dense EPSLAPACK */
static PetscErrorCode SolveDense(Mat A, Mat B, PetscInt n, EPS *eps)
{
  PetscFunctionBeginUser;
  PetscCall(EPSCreate(PETSC_COMM_SELF, eps));
  PetscCall(EPSSetOperators(*eps, A, B));
  PetscCall(EPSSetProblemType(*eps, B ? EPS_GNHEP : EPS_NHEP));
  PetscCall(EPSSetType(*eps, EPSLAPACK));
  PetscCall(EPSSetDimensions(*eps, n, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSolve(*eps));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckCompanion(MbsTest *test, MbsModel model, const MbsEigenResult *result)
{
  PetscInt   nq, n, nconv;
  PetscReal *M, *C, *K, *found_re, *found_im;
  Mat        A, B;
  EPS        eps;
  PetscInt   nfound = 0;

  PetscFunctionBeginUser;
  PetscCall(MbsModelLinearize(model, &nq, &M, &C, &K));
  n = 2 * nq;
  PetscCall(MbsTestCompanionPencil(nq, M, C, K, &A, &B));
  PetscCall(SolveDense(A, B, n, &eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCall(MbsTestTrue(test, "EPSLAPACK finds every eigenvalue of the companion form", (PetscBool)(nconv == n)));
  PetscCall(PetscMalloc2(nconv, &found_re, nconv, &found_im));
  for (PetscInt i = 0; i < nconv; i++) {
    PetscScalar kr, ki;

    PetscCall(EPSGetEigenvalue(eps, i, &kr, &ki));
    found_re[i] = PetscRealPart(kr);
    found_im[i] = PetscRealPart(ki);
  }
  /* each PEP eigenvalue against the nearest companion eigenvalue */
  for (PetscInt i = 0; i < result->nmode + result->nreal; i++) {
    PetscReal re, im, best = PETSC_MAX_REAL, size;
    char      what[64];

    if (i < result->nmode) {
      PetscReal w = 2 * PETSC_PI * result->frequency_hz[i], zeta = result->damping_ratio[i];

      re = -zeta * w;
      im = w * PetscSqrtReal(1 - zeta * zeta);
    } else {
      re = result->real_eigenvalues[i - result->nmode];
      im = 0;
    }
    size = PetscMax(PetscSqrtReal(re * re + im * im), 1e-300);
    for (PetscInt j = 0; j < nconv; j++) best = PetscMin(best, PetscSqrtReal(PetscSqr(found_re[j] - re) + PetscSqr(found_im[j] - im)));
    PetscCall(PetscSNPrintf(what, sizeof(what), "eigenvalue %" PetscInt_FMT " in the companion's", i));
    /* a rigid-body zero is checked absolutely against the largest eigenvalue */
    PetscCall(MbsTestClose(test, what, best, 0, 0, 1e-8 * (re == 0 && im == 0 ? PetscSqrtReal(PetscSqr(found_re[0]) + PetscSqr(found_im[0])) + 1 : size)));
    nfound += i < result->nmode ? 2 : 1;
  }
  PetscCall(PetscFree2(found_re, found_im));
  PetscCall(EPSDestroy(&eps));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFree3(M, C, K));
  PetscFunctionReturn(0);
}

/* The first-order system of engine4's V1: x = (q_m, v_m, q_n) with the massive coordinates m and the massless n */
static PetscErrorCode CheckEngine4(MbsTest *test, MbsModel model, const MbsEigenResult *result)
{
  PetscInt   nq, nm = 0, nn = 0, n, nconv, nosc = 0, nreal = 0, mass[16], node[16], nexpect = 8, nexpect_real = 2;
  PetscReal *M, *C, *K, *A, expect[8], expect_real[2], rtol = 0.01, *freq, *zeta, *real;
  PetscBool  have_expect, have_expect_real;
  Mat        Amat;
  EPS        eps;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-expect_hz", expect, &nexpect, &have_expect));
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-expect_real", expect_real, &nexpect_real, &have_expect_real));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-expect_rtol", &rtol, NULL));
  PetscCall(MbsModelLinearize(model, &nq, &M, &C, &K));
  for (PetscInt i = 0; i < nq; i++) {
    if (M[i + i * nq] != 0) mass[nm++] = i;
    else node[nn++] = i;
  }
  PetscCall(MbsTestTrue(test, "8 coordinates with mass, 2 massless Maxwell nodes", (PetscBool)(nm == 8 && nn == 2)));
  n = 2 * nm + nn;
  PetscCall(PetscCalloc1(n * n, &A));
  /* node rows: q_n' = -(C_nm v_m + K_nm q_m + K_nn q_n) / C_nn, C_nn diagonal (each node has its own damper) */
  for (PetscInt a = 0; a < nn; a++) {
    PetscInt  i = node[a];
    PetscReal d = C[i + i * nq];

    for (PetscInt b = 0; b < nm; b++) {
      IJ(A, 2 * nm + a, b, n)      = -K[i + mass[b] * nq] / d;
      IJ(A, 2 * nm + a, nm + b, n) = -C[i + mass[b] * nq] / d;
    }
    for (PetscInt b = 0; b < nn; b++) IJ(A, 2 * nm + a, 2 * nm + b, n) = -K[i + node[b] * nq] / d;
  }
  /* mass rows: M_mm v' = -K_mm q_m - K_mn q_n - C_mm v - C_mn q_n', with q_n' from the node rows */
  for (PetscInt a = 0; a < nm; a++) {
    PetscInt  i = mass[a];
    PetscReal m = M[i + i * nq];

    IJ(A, a, nm + a, n) = 1;
    for (PetscInt b = 0; b < nm; b++) {
      IJ(A, nm + a, b, n)      = -K[i + mass[b] * nq] / m;
      IJ(A, nm + a, nm + b, n) = -C[i + mass[b] * nq] / m;
    }
    for (PetscInt b = 0; b < nn; b++) IJ(A, nm + a, 2 * nm + b, n) = -K[i + node[b] * nq] / m;
    for (PetscInt b = 0; b < nn; b++)
      for (PetscInt col = 0; col < n; col++) IJ(A, nm + a, col, n) -= C[i + node[b] * nq] / m * IJ(A, 2 * nm + b, col, n);
  }
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, A, &Amat));
  PetscCall(SolveDense(Amat, NULL, n, &eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCall(MbsTestTrue(test, "the PEP has 8 oscillatory modes and 2 real eigenvalues", (PetscBool)(result->nmode == 8 && result->nreal == 2)));
  PetscCall(PetscMalloc3(nconv, &freq, nconv, &zeta, nconv, &real));
  for (PetscInt j = 0; j < nconv; j++) {
    PetscScalar kr, ki;
    PetscReal   re, im, w;

    PetscCall(EPSGetEigenvalue(eps, j, &kr, &ki));
    re = PetscRealPart(kr);
    im = PetscRealPart(ki);
    w  = PetscSqrtReal(re * re + im * im);
    if (im > 0) {
      freq[nosc]   = w / (2 * PETSC_PI);
      zeta[nosc++] = -re / w;
    } else if (im == 0) real[nreal++] = -re; /* ascending in -re: the order of the result's descending real eigenvalues */
  }
  for (PetscInt i = 1; i < nosc; i++) /* by frequency, carrying the damping ratio */
    for (PetscInt j = i; j > 0 && freq[j - 1] > freq[j]; j--) {
      PetscReal f = freq[j], z = zeta[j];

      freq[j]     = freq[j - 1];
      zeta[j]     = zeta[j - 1];
      freq[j - 1] = f;
      zeta[j - 1] = z;
    }
  PetscCall(PetscSortReal(nreal, real));
  for (PetscInt j = 0; j < nosc && j < result->nmode; j++) {
    PetscCall(MbsTestClose(test, "frequency [Hz] vs the first-order system", result->frequency_hz[j], freq[j], 1e-7, 0));
    PetscCall(MbsTestClose(test, "damping ratio vs the first-order system", result->damping_ratio[j], zeta[j], 0, 1e-7));
  }
  for (PetscInt j = 0; j < nreal && j < result->nreal; j++) PetscCall(MbsTestClose(test, "real eigenvalue [1/s] vs the first-order system", result->real_eigenvalues[j], -real[j], 1e-7, 0));
  PetscCall(PetscFree3(freq, zeta, real));
  PetscCall(MbsTestTrue(test, "the first-order system has 8 oscillatory modes and 2 real eigenvalues", (PetscBool)(nosc == 8 && nreal == 2)));
  for (PetscInt i = 0; have_expect && i < nexpect && i < result->nmode; i++) PetscCall(MbsTestClose(test, "frequency [Hz] vs the spec's rough value", result->frequency_hz[i], expect[i], rtol, 0));
  for (PetscInt i = 0; have_expect_real && i < nexpect_real && i < result->nreal; i++) PetscCall(MbsTestClose(test, "real eigenvalue [1/s] vs the spec's rough value", result->real_eigenvalues[i], expect_real[i], rtol, 0));
  PetscCall(EPSDestroy(&eps));
  PetscCall(MatDestroy(&Amat));
  PetscCall(PetscFree(A));
  PetscCall(PetscFree3(M, C, K));
  PetscFunctionReturn(0);
}

/* dF/dU (wrt_rate false) or dF/dU' at (t, U, U') by 4th-order central differences of absolute step h (n x n) */
static PetscErrorCode ResidualDifferences(MbsModel model, PetscInt n, PetscReal t, PetscReal U[], PetscReal Udot[], PetscBool wrt_rate, PetscReal h, PetscReal D[], PetscReal *work)
{
  const PetscReal offset[4] = {2, 1, -1, -2};
  PetscReal      *x         = wrt_rate ? Udot : U;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < n; j++) {
    PetscReal x0 = x[j];

    for (PetscInt s = 0; s < 4; s++) {
      x[j] = x0 + offset[s] * h;
      PetscCall(MbsModelResidual(model, t, U, Udot, work + s * n));
    }
    x[j] = x0;
    for (PetscInt i = 0; i < n; i++) IJ(D, i, j, n) = (8 * (work[n + i] - work[2 * n + i]) - (work[i] - work[3 * n + i])) / (12 * h);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckDae(MbsTest *test, MbsModel model, const MbsEigenResult *result)
{
  PetscInt     n, nq, np, nfinite = 0;
  PetscReal   *U, *Udot, *A, *B, *work, *nu_re, *nu_im, scale = 0, sigma = 1, rtol = 1e-8, t0, tf, dt;
  PetscInt    *pivots;
  PetscBLASInt bn, lwork, info, one = 1;
  PetscReal    dummy;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dae_rtol", &rtol, NULL));
  PetscCall(MbsModelGetSizes(model, &n, &nq, &np));
  PetscCall(MbsModelGetTimeSpan(model, &t0, &tf, &dt));
  PetscCall(PetscCalloc6(n, &U, n, &Udot, n * n, &A, n * n, &B, 4 * n + 8 * n, &work, 2 * n, &nu_re));
  PetscCall(PetscMalloc1(3 * n, &pivots));
  nu_im = nu_re + n;
  PetscCall(MbsModelInitialState(model, t0, U, Udot));
  PetscCall(PetscArrayzero(Udot, n)); /* at rest: the linearisation is about U' = 0 */
  PetscCall(ResidualDifferences(model, n, t0, U, Udot, PETSC_FALSE, 1e-6, A, work));
  PetscCall(ResidualDifferences(model, n, t0, U, Udot, PETSC_TRUE, 1e-6, B, work));
  /* T = (A + sigma B)^-1 B, in B */
  for (PetscInt i = 0; i < n * n; i++) A[i] += sigma * B[i];
  PetscCheck(MbsDenseLUFactor(n, A, pivots) < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "A + sigma B is singular: choose another shift");
  MbsDenseLUSolve(n, A, pivots, n, B);
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(12 * n - 4 * n, &lwork));
  LAPACKgeev_("N", "N", &bn, B, &bn, nu_re, nu_im, &dummy, &one, &dummy, &one, work + 4 * n, &lwork, &info);
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK geev failed with info %d", (int)info);
  for (PetscInt i = 0; i < n; i++) scale = PetscMax(scale, PetscHypotReal(nu_re[i], nu_im[i]));
  for (PetscInt i = 0; i < n; i++) { /* the finite lambda = sigma - 1/nu, in place */
    PetscReal size = PetscHypotReal(nu_re[i], nu_im[i]);

    if (size <= 1e-9 * scale) continue;
    nu_re[nfinite]   = sigma - nu_re[i] / (size * size);
    nu_im[nfinite++] = nu_im[i] / (size * size);
  }
  PetscCall(MbsTestTrue(test, "the pencil of the residual's differences has 2 nq finite eigenvalues", (PetscBool)(nfinite == 2 * nq)));
  for (PetscInt i = 0; i < result->nlambda; i++) {
    PetscReal re = result->lambda[2 * i], im = result->lambda[2 * i + 1], best = PETSC_MAX_REAL;

    for (PetscInt j = 0; j < nfinite; j++) best = PetscMin(best, PetscHypotReal(nu_re[j] - re, nu_im[j] - im));
    PetscCall(MbsTestClose(test, "eigenvalue's distance to the pencil's", best, 0, 0, rtol * PetscHypotReal(re, im)));
  }
  PetscCall(PetscFree6(U, Udot, A, B, work, nu_re));
  PetscCall(PetscFree(pivots));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckTwin(MbsTest *test, const MbsEigenResult *result)
{
  MbsModel       twin;
  MbsEigenResult expected;
  char           name[64] = "";
  PetscReal      scale    = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-twin_model", name, sizeof(name), NULL));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &twin));
  PetscCall(MbsModelSetType(twin, name));
  PetscCall(MbsEigenCompute(twin, NULL, &expected));
  PetscCall(MbsTestTrue(test, "as many finite eigenvalues and oscillatory modes as the hand-coded model", (PetscBool)(result->nlambda == expected.nlambda && result->nmode == expected.nmode)));
  for (PetscInt i = 0; i < expected.nlambda; i++) scale = PetscMax(scale, PetscHypotReal(expected.lambda[2 * i], expected.lambda[2 * i + 1]));
  for (PetscInt i = 0; i < PetscMin(result->nlambda, expected.nlambda); i++) {
    PetscCall(MbsTestClose(test, "eigenvalue, real part [1/s]", result->lambda[2 * i], expected.lambda[2 * i], 0, 1e-10 * scale));
    PetscCall(MbsTestClose(test, "eigenvalue, imaginary part [1/s]", result->lambda[2 * i + 1], expected.lambda[2 * i + 1], 0, 1e-10 * scale));
  }
  for (PetscInt i = 0; i < PetscMin(result->nmode, expected.nmode); i++) {
    PetscCall(MbsTestClose(test, "natural frequency [Hz]", result->frequency_hz[i], expected.frequency_hz[i], 1e-10, 0));
    PetscCall(MbsTestClose(test, "damping ratio", result->damping_ratio[i], expected.damping_ratio[i], 1e-10, 0));
  }
  PetscCall(MbsEigenResultReset(&expected));
  PetscCall(MbsModelDestroy(&twin));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel       model;
  MbsEigenResult result;
  MbsTest        test      = {0, 0};
  char           check[32] = "companion";

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-check", check, sizeof(check), NULL));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsEigenCompute(model, NULL, &result));
  PetscCall(MbsEigenView(PETSC_COMM_WORLD, &result));
  PetscCall(MbsTestTrue(&test, "no unstable eigenvalue", (PetscBool)!result.unstable));
  if (!strcmp(check, "companion")) {
    PetscCall(CheckCompanion(&test, model, &result));
  } else if (!strcmp(check, "oscillator2")) {
    PetscReal p[6], m, c1, c2, beta, sum, root;

    PetscCall(MbsModelGetParameters(model, p)); /* m1, m2, c1, c2, d1, d2 */
    m    = p[0];
    c1   = p[2];
    c2   = p[3];
    beta = p[4] / c1;
    PetscCheck(p[1] == m && PetscAbsReal(p[5] - beta * c2) <= 1e-12 * p[5], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-check oscillator2 needs m1 = m2 and d_i = beta c_i");
    sum  = c1 + 2 * c2;
    root = PetscSqrtReal(sum * sum - 4 * c1 * c2);
    PetscCall(MbsTestTrue(&test, "two oscillatory modes", (PetscBool)(result.nmode == 2 && result.nreal == 0)));
    for (PetscInt i = 0; i < 2 && i < result.nmode; i++) {
      PetscReal w = PetscSqrtReal((sum + (i ? 1 : -1) * root) / (2 * m));

      PetscCall(MbsTestClose(&test, "natural frequency [Hz]", result.frequency_hz[i], w / (2 * PETSC_PI), 1e-8, 0));
      PetscCall(MbsTestClose(&test, "damping ratio", result.damping_ratio[i], beta * w / 2, 1e-8, 0));
    }
  } else if (!strcmp(check, "engine4")) {
    PetscCall(CheckEngine4(&test, model, &result));
  } else if (!strcmp(check, "chain")) {
    const PetscReal want[3] = {0.170, 1.36, 3.90};
    PetscReal       p[9];

    PetscCall(MbsModelGetParameters(model, p)); /* mc, m, l, g, cf, df, dc, F0, tp */
    PetscCall(MbsTestTrue(&test, "three oscillatory modes, two real eigenvalues", (PetscBool)(result.nmode == 3 && result.nreal == 2)));
    for (PetscInt i = 0; i < 3 && i < result.nmode; i++) PetscCall(MbsTestClose(&test, "swing / bending 1 / bending 2 [Hz]", result.frequency_hz[i], want[i], 5e-3, 0));
    PetscCall(MbsTestTrue(&test, "one rigid-body (zero) mode", (PetscBool)(result.nzero == 1)));
    if (result.nreal == 2) PetscCall(MbsTestClose(&test, "real eigenvalue ~ -d_c/M_xx [1/s]", result.real_eigenvalues[1], -p[6] / (p[0] + 3 * p[1]), 0.05, 0));
  } else if (!strcmp(check, "dae")) {
    PetscCall(CheckDae(&test, model, &result));
  } else if (!strcmp(check, "twin")) {
    PetscCall(CheckTwin(&test, &result));
  } else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -check %s", check);
  PetscCall(MbsTestFinish(&test));
  PetscCall(MbsEigenResultReset(&result));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(SlepcFinalize());
  return 0;
}
