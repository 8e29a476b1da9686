static const char help[] = "Checks a model's analytic dF/dU, dF/dU', dF/dp and dy/dU against central finite differences at random states.\n"
                           "With -integration_form the same for the form the integrator sees (explicit U' = g(U) for a state-dependent mass);\n"
                           "with -rate_form for the explicit rate U' = g(t, U) of explicit integrators, as the residual U' - g.\n";

/*
  The linearisation M, C, K about the rest state U = U' = 0 must equal the Jacobian's blocks there
  (rows of the velocity equations): M = dF_v/dU'_v, C = dF_v/dU_v, K = dF_v/dU_q, to 1e-12.

  For each of -states random states (U, U' uniform in [-s, s], s = -state_scale (1), parameters within +-10 % of their
  defaults) every entry of the analytic derivative must match the central difference
  (f(x + h) - f(x - h)) / 2h, h = 1e-6 max(1, |x|), to |err| <= 1e-6 max(|J_ij|, 1e-8 max|J|).
*/
#include "mbstest.h"
#include "models/modelimpl.h"
#include <petscsys.h>

typedef PetscErrorCode (*ResidualFn)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
typedef PetscErrorCode (*JacobianFn)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal, PetscReal[]);
typedef PetscErrorCode (*JacobianPFn)(MbsModel, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);

/* the model's own form, or with -integration_form the one the integrator sees */
static ResidualFn  Residual       = MbsModelResidual;
static JacobianFn  Jacobian       = MbsModelJacobian;
static JacobianPFn JacobianP      = MbsModelJacobianP;
static PetscReal   fd_step        = 1e-6; /* relative step of the central differences */
static PetscReal   second_fd_step = 0;    /* step of the differences of the Jacobian along a direction (-second), 0: fd_step */

/* The explicit rate as a residual F_r = U' - g(t, U): dF_r/dU + shift dF_r/dU' = shift I - dg/dU, dF_r/dp = -dg/dp */
static PetscErrorCode RateResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCall(MbsModelRate(model, t, u, f));
  for (PetscInt i = 0; i < n; i++) f[i] = udot[i] - f[i];
  PetscFunctionReturn(0);
}

static PetscErrorCode RateJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCall(MbsModelRateJacobian(model, t, u, J));
  for (PetscInt i = 0; i < n * n; i++) J[i] = -J[i];
  for (PetscInt i = 0; i < n; i++) J[i + i * n] += shift;
  PetscFunctionReturn(0);
}

static PetscErrorCode RateJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  PetscInt n, np;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(MbsModelRateJacobianP(model, t, u, Jp));
  for (PetscInt i = 0; i < n * np; i++) Jp[i] = -Jp[i];
  PetscFunctionReturn(0);
}

static PetscInt fd_order = 2; /* order of the central differences, 2 or 4 */

typedef enum {
  WRT_U,
  WRT_UDOT,
  WRT_P
} Wrt;

/* Column j of the central difference of the residual with respect to U, U' or p */
static PetscErrorCode ResidualDifference(MbsModel model, Wrt wrt, PetscInt j, PetscReal t, PetscReal u[], PetscReal udot[], PetscReal p[], PetscReal col[])
{
  PetscInt   n, np;
  PetscReal *x = wrt == WRT_U ? u : wrt == WRT_UDOT ? udot : p, x0 = x[j], h = fd_step * PetscMax(1, PetscAbsReal(x0)), *fp, *fm;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(PetscMalloc2(n, &fp, n, &fm));
  PetscCall(PetscArrayzero(col, n));
  for (PetscInt k = 1; k <= fd_order / 2; k++) { /* 2nd order: (f(x+h) - f(x-h))/2h; 4th order adds -(f(x+2h) - f(x-2h))/12h */
    PetscReal weight = fd_order == 2 ? 0.5 : (k == 1 ? 8.0 / 12 : -1.0 / 12);

    x[j] = x0 + k * h;
    PetscCall(MbsModelSetParameters(model, p));
    PetscCall(Residual(model, t, u, udot, fp));
    x[j] = x0 - k * h;
    PetscCall(MbsModelSetParameters(model, p));
    PetscCall(Residual(model, t, u, udot, fm));
    for (PetscInt i = 0; i < n; i++) col[i] += weight * (fp[i] - fm[i]) / h;
  }
  x[j] = x0;
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(PetscFree2(fp, fm));
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareColumn(MbsTest *test, const char what[], PetscInt j, PetscInt n, const PetscReal analytic[], const PetscReal fd[], PetscReal scale)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal err = PetscAbsReal(analytic[i] - fd[i]), tol = 1e-6 * PetscMax(PetscAbsReal(analytic[i]), 1e-8 * scale);

    test->checks++;
    if (err > tol) {
      test->failures++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s(%" PetscInt_FMT ",%" PetscInt_FMT "): analytic % .10e, finite difference % .10e\n", what, i, j, (double)analytic[i], (double)fd[i]));
    }
  }
  PetscFunctionReturn(0);
}

/* dy/dU_j (p NULL) or dy/dp_j by 4th-order central differences of relative step -fd_step (at least 1e-4): an
   accelerometer's y is large at random states, and a step of 1e-6 leaves rounding of 1e-5 of its smaller derivatives */
static PetscErrorCode OutputDifference(MbsModel model, PetscReal t, PetscReal u[], PetscReal p[], PetscInt j, PetscReal *derivative)
{
  PetscReal      *x = p ? p : u, x0 = x[j], h = PetscMax(fd_step, 1e-4) * PetscMax(1, PetscAbsReal(x0)), y[4];
  const PetscReal offset[4] = {2, 1, -1, -2};

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < 4; s++) {
    x[j] = x0 + offset[s] * h;
    if (p) PetscCall(MbsModelSetParameters(model, p));
    PetscCall(MbsModelOutput(model, t, u, &y[s], NULL));
  }
  x[j] = x0;
  if (p) PetscCall(MbsModelSetParameters(model, p));
  *derivative = (8 * (y[1] - y[2]) - (y[0] - y[3])) / (12 * h); /* exactly 0 where y does not depend on x_j */
  PetscFunctionReturn(0);
}

/*
  dU(t0)/dp of a model whose consistent initial state depends on its parameters (the adjoint adds lambda0^T dU(t0)/dp:
  MbsModelInitialStateGradient, read row by row with lambda0 = e_i) against 4th-order central differences of
  MbsModelInitialState at p
*/
static PetscErrorCode CheckInitialStateP(MbsTest *test, MbsModel model, const MbsParameterInfo info[], PetscReal p[])
{
  PetscInt        n, np, *id;
  PetscReal       t0, *u, *udot, *e, *dudp, *fd;
  const PetscReal offset[4] = {2, 1, -1, -2}, weight[4] = {-1.0 / 12, 8.0 / 12, -8.0 / 12, 1.0 / 12};

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(MbsModelGetTimeSpan(model, &t0, NULL, NULL));
  PetscCall(PetscCalloc6(n, &u, n, &udot, n, &e, n * np, &dudp, n, &fd, np, &id));
  for (PetscInt k = 0; k < np; k++) id[k] = k;
  for (PetscInt i = 0; i < n; i++) { /* row i of dU(t0)/dp */
    PetscReal *row = dudp + i * np;

    e[i] = 1;
    PetscCall(MbsModelInitialStateGradient(model, t0, np, id, e, row));
    e[i] = 0;
  }
  for (PetscInt k = 0; k < np; k++) {
    PetscReal p0 = p[k], h = PetscMax(fd_step, 1e-4) * PetscMax(1, PetscAbsReal(p0)), scale = 0;

    if (!info[k].identifiable) continue;
    PetscCall(PetscArrayzero(fd, n));
    for (PetscInt s = 0; s < 4; s++) {
      p[k] = p0 + offset[s] * h;
      PetscCall(MbsModelSetParameters(model, p));
      PetscCall(MbsModelInitialState(model, t0, u, udot));
      for (PetscInt i = 0; i < n; i++) fd[i] += weight[s] * u[i] / h;
    }
    p[k] = p0;
    PetscCall(MbsModelSetParameters(model, p));
    for (PetscInt i = 0; i < n; i++) scale = PetscMax(scale, PetscAbsReal(u[i]));
    for (PetscInt i = 0; i < n; i++) { /* the differences' rounding: of states from LU solves (~100 eps |U|), by weights of sum 1.5, over h */
      PetscReal analytic = dudp[i * np + k], err = PetscAbsReal(analytic - fd[i]), tol = 1e-6 * PetscAbsReal(analytic) + 1e3 * PETSC_MACHINE_EPSILON * scale / h;

      test->checks++;
      if (err > tol) {
        test->failures++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL dU(t0)/dp(%" PetscInt_FMT ",%" PetscInt_FMT "): analytic % .10e, finite difference % .10e\n", i, k, (double)analytic, (double)fd[i]));
      }
    }
  }
  PetscCall(PetscFree6(u, udot, e, dudp, fd, id));
  PetscFunctionReturn(0);
}

static PetscReal MaxAbs(PetscInt n, const PetscReal a[])
{
  PetscReal m = 0;

  for (PetscInt i = 0; i < n; i++) m = PetscMax(m, PetscAbsReal(a[i]));
  return m;
}

/* The transposed solve of the small LU (MbsDenseLUSolveTranspose) on a matrix that needs row swaps (zero diagonal
   entries) and has a zero pattern: A^T x = b to 1e-13 of |A| |x| (the models' mass matrices never pivot) */
static PetscErrorCode CheckTransposeSolve(MbsTest *test)
{
  const PetscInt  n       = 4;
  const PetscReal A[4][4] = {
  /* column-major: A[j][i] is row i of column j */
    {0, 2, 0, 1},
    {3, 0, 0, 0},
    {0, 1, 0, 5},
    {1, 0, 4, 2}
  };
  const PetscReal b[4] = {1, -2, 0.5, 3};
  PetscReal       LU[16], x[4], residual = 0, scale = 0;
  PetscInt        pivots[12];

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(LU, &A[0][0], n * n));
  PetscCheck(MbsDenseLUFactor(n, LU, pivots) < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The test matrix is regular");
  PetscCall(PetscArraycpy(x, b, n));
  MbsDenseLUSolveTranspose(n, LU, pivots, x);
  for (PetscInt j = 0; j < n; j++) { /* (A^T x)_j = column j of A times x */
    PetscReal sum = 0;

    for (PetscInt i = 0; i < n; i++) {
      sum += A[j][i] * x[i];
      scale = PetscMax(scale, PetscAbsReal(A[j][i] * x[i]));
    }
    residual = PetscMax(residual, PetscAbsReal(sum - b[j]));
  }
  test->checks++;
  if (residual > 1e-13 * scale) {
    test->failures++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL A^T x = b by the transposed LU solve: residual %.3e of %.3e\n", (double)residual, (double)scale));
  }
  PetscFunctionReturn(0);
}

/* The Runge-Kutta adjoint's products w^T dg/dU and w^T dg/dp (MbsModelRateAdjoint: one solve with E^T) at a w of mixed
   signs and sizes, against the same products with dg/dU and dg/dp that the caller has checked against differences (the
   random stream of the states is left alone) */
static PetscErrorCode CheckRateAdjoint(MbsTest *test, MbsModel model, PetscReal t, const PetscReal u[])
{
  PetscInt   n, np, *all;
  PetscReal *w, *G, *Gp, *work, *wg, *product;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(PetscMalloc6(n, &w, n * n, &G, n * np, &Gp, n * (np + 1), &work, n + np, &wg, n + np, &product));
  PetscCall(PetscMalloc1(np, &all));
  for (PetscInt k = 0; k < np; k++) all[k] = k;
  for (PetscInt i = 0; i < n; i++) w[i] = PetscSinReal(1.0 + 3 * i);
  PetscCall(MbsModelRateJacobian(model, t, u, G));
  PetscCall(MbsModelRateJacobianP(model, t, u, Gp));
  PetscCall(MbsModelRateAdjoint(model, t, u, w, np, all, work, wg, wg + n));
  for (PetscInt j = 0; j < n + np; j++) {
    const PetscReal *column = j < n ? &G[j * n] : &Gp[(j - n) * n];

    product[j] = 0;
    for (PetscInt i = 0; i < n; i++) product[j] += w[i] * column[i];
  }
  PetscCall(CompareColumn(test, "w^T dg/dU", 0, n, wg, product, MaxAbs(n, product)));
  PetscCall(CompareColumn(test, "w^T dg/dp", 0, np, wg + n, product + n, MaxAbs(np, product + n)));
  PetscCall(PetscFree(all));
  PetscCall(PetscFree6(w, G, Gp, work, wg, product));
  PetscFunctionReturn(0);
}

/*
  The model's own sparse Jacobian (MbsModelJacobianMat, a described model's) against its dense one J (checked above by
  differences) at the same state and shift: every entry of J in the AIJ's pattern, and equal to rounding.
*/
static PetscErrorCode CompareSparse(MbsTest *test, MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, const PetscReal J[])
{
  PetscInt           n, mismatch = 0;
  PetscReal          scale = 0, worst = 0;
  Mat                A, D;
  const PetscScalar *d;
  char               line[128];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCall(MbsModelJacobianCreate(model, u, &A));
  PetscCall(MbsModelJacobianMat(model, t, u, udot, shift, A));
  PetscCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatDenseGetArrayRead(D, &d));
  for (PetscInt i = 0; i < n * n; i++) scale = PetscMax(scale, PetscAbsReal(J[i]));
  for (PetscInt i = 0; i < n * n; i++) {
    worst = PetscMax(worst, PetscAbsReal(d[i] - J[i]));
    mismatch += PetscAbsReal(d[i] - J[i]) > 1e-14 * scale;
  }
  PetscCall(MatDenseRestoreArrayRead(D, &d));
  PetscCall(PetscSNPrintf(line, sizeof(line), "sparse Jacobian equals the dense one (largest difference %.1e of %.1e)", (double)worst, (double)scale));
  PetscCall(MbsTestTrue(test, line, (PetscBool)(mismatch == 0)));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/*
  The model's second derivatives (ops.jacobian_sensitivity, the sensitivity equations of optimal input design) along a
  random direction (S, S') and parameter j, against differences of its Jacobian (checked above) along the direction
  (S, S', c e_j), c = max(1, |p_j|):

    D(S, S', j) + (c - 1) D(0, 0, j)  ~  d/deps J(U + eps S, U' + eps S', p + eps c e_j; shift)

  (D is linear in the direction, D(0, 0, j) the parameter's part), 4th-order central differences of step
  -second_fd_step (default -fd_step); the
  directions come from their own random stream, so the states stay those of the other checks.
*/
static PetscErrorCode CheckSecond(MbsTest *test, MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal p[], PetscInt j, PetscRandom rnd, PetscReal state_scale)
{
  const PetscReal shift = 37.5, offset[4] = {2, 1, -1, -2}, weight[4] = {-1, 8, -8, 1};
  PetscInt        n, np;
  PetscReal      *S, *Sdot, *D, *D0, *fd, *J, *up, *udotp, *zero, pj = p[j], c = PetscMax(1, PetscAbsReal(p[j])), h = second_fd_step > 0 ? second_fd_step : fd_step;
  char            what[64];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(PetscMalloc6(n, &S, n, &Sdot, n * n, &D, n * n, &D0, n * n, &fd, n * n, &J));
  PetscCall(PetscCalloc3(n, &up, n, &udotp, n, &zero));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscRandomGetValueReal(rnd, &S[i]));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscRandomGetValueReal(rnd, &Sdot[i]));
  for (PetscInt i = 0; i < n; i++) {
    S[i] *= state_scale;
    Sdot[i] *= state_scale;
  }
  PetscCall(PetscArrayzero(D, n * n));
  PetscCall(PetscArrayzero(D0, n * n));
  PetscCall(PetscArrayzero(fd, n * n));
  PetscCall(model->ops.jacobian_sensitivity(model, t, u, udot, S, Sdot, j, shift, D));
  PetscCall(model->ops.jacobian_sensitivity(model, t, u, udot, zero, zero, j, shift, D0));
  for (PetscInt i = 0; i < n * n; i++) D[i] += (c - 1) * D0[i];
  for (PetscInt k = 0; k < 4; k++) {
    PetscReal e = offset[k] * h;

    for (PetscInt i = 0; i < n; i++) {
      up[i]    = u[i] + e * S[i];
      udotp[i] = udot[i] + e * Sdot[i];
    }
    p[j] = pj + e * c;
    PetscCall(MbsModelSetParameters(model, p));
    PetscCall(PetscArrayzero(J, n * n));
    PetscCall(MbsModelJacobian(model, t, up, udotp, shift, J));
    for (PetscInt i = 0; i < n * n; i++) fd[i] += weight[k] * J[i] / (12 * h);
  }
  p[j] = pj;
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(PetscSNPrintf(what, sizeof(what), "D_%" PetscInt_FMT " (column-major entry)", j));
  /* entries that are 0 get the differences' rounding, about eps |J| / h, as their floor */
  PetscCall(CompareColumn(test, what, 0, n * n, D, fd, PetscMax(MaxAbs(n * n, D), MaxAbs(n * n, J) / h)));
  PetscCall(PetscFree6(S, Sdot, D, D0, fd, J));
  PetscCall(PetscFree3(up, udotp, zero));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel                model, base = NULL;
  char                   *sensitivity[4], *second[8];
  PetscInt                nsensitivity = 4, nsecond = 8, second_index[8];
  MbsTest                 test = {0, 0};
  PetscRandom             rnd, rnd_second;
  PetscInt                n, nq_model, np, nstates = 5;
  PetscBool               integration_form = PETSC_FALSE, rate_form = PETSC_FALSE, sensitivity_nodal = PETSC_TRUE;
  PetscReal               state_scale = 1;
  PetscReal              *u, *udot, *p, *p0, *J, *J0, *J1, *E, *Jp, *col, *dydu, *dydp, t, y;
  const MbsParameterInfo *info;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Jacobian test", "");
  PetscCall(PetscOptionsInt("-states", "Number of random states", "", nstates, &nstates, NULL));
  PetscCall(PetscOptionsReal("-fd_step", "Relative step of the central differences", "", fd_step, &fd_step, NULL));
  PetscCall(PetscOptionsInt("-fd_order", "Order of the central differences, 2 or 4", "", fd_order, &fd_order, NULL));
  PetscCall(PetscOptionsReal("-state_scale", "Random states U, U' are uniform in [-scale, scale] (a model with stiff springs needs twists of physical size, or rounding swamps the differences)", "", state_scale, &state_scale, NULL));
  PetscCall(PetscOptionsBool("-integration_form", "Check the form the integrator sees", "", integration_form, &integration_form, NULL));
  PetscCall(PetscOptionsBool("-rate_form", "Check the explicit rate of explicit integrators", "", rate_form, &rate_form, NULL));
  PetscCall(PetscOptionsStringArray("-sensitivity", "Check the sensitivity-extended system of these parameters, driven by a nodal input whose forces are its last parameters", "", sensitivity, &nsensitivity, NULL));
  PetscCall(PetscOptionsStringArray("-second", "Check the second derivatives of the sensitivity equations (ops.jacobian_sensitivity) in these parameters against differences of the Jacobian", "", second, &nsecond, NULL));
  PetscCall(PetscOptionsReal("-second_fd_step", "Step of the differences of -second (0: -fd_step)", "", second_fd_step, &second_fd_step, NULL));
  PetscCall(PetscOptionsBool("-sensitivity_nodal", "Drive the base of -sensitivity by a nodal input (false: a model without a force input, a described one, with its own excitation)", "", sensitivity_nodal, &sensitivity_nodal, NULL));
  PetscOptionsEnd();
  if (integration_form) {
    Residual  = MbsModelFormResidual;
    Jacobian  = MbsModelFormJacobian;
    JacobianP = MbsModelFormJacobianP;
  }
  if (rate_form) {
    Residual  = RateResidual;
    Jacobian  = RateJacobian;
    JacobianP = RateJacobianP;
  }
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetFromOptions(model));
  if (rate_form) PetscCall(CheckTransposeSolve(&test));
  if (nsensitivity) { /* the second derivatives: the extended Jacobian against differences of the extended residual */
    PetscInt  b[4];
    PetscReal t0, tf, tn[11], Fn[11];

    base = model;
    for (PetscInt j = 0; j < nsensitivity; j++) {
      PetscCall(MbsModelGetParameterIndex(base, sensitivity[j], &b[j]));
      PetscCall(PetscFree(sensitivity[j]));
    }
    PetscCall(MbsModelGetTimeSpan(base, &t0, &tf, NULL));
    for (PetscInt k = 0; k < 11; k++) {
      tn[k] = t0 + k * (tf - t0) / 10;
      Fn[k] = PetscSinReal(1.0 + 3 * k);
    }
    if (sensitivity_nodal) PetscCall(MbsModelSetNodalInput(base, 11, tn, Fn));
    PetscCall(MbsModelCreateSensitivity(base, nsensitivity, b, &model));
  }
  for (PetscInt k = 0; k < nsecond; k++) {
    PetscCall(MbsModelGetParameterIndex(model, second[k], &second_index[k]));
    PetscCall(PetscFree(second[k]));
  }
  PetscCheck(!nsecond || model->ops.jacobian_sensitivity, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-second: model %s has no second derivatives (ops.jacobian_sensitivity)", model->type);
  PetscCall(MbsModelGetSizes(model, &n, &nq_model, &np));
  PetscCall(MbsModelGetParameterInfo(model, &info));
  PetscCall(PetscMalloc6(n, &u, n, &udot, np, &p, np, &p0, n * n, &J, n * n, &E));
  PetscCall(PetscMalloc6(n * n, &J0, n * n, &J1, n * np, &Jp, PetscMax(n, np), &col, n, &dydu, np, &dydp));
  PetscCall(MbsModelGetParameters(model, p0));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd, 20261122));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd_second));
  PetscCall(PetscRandomSetInterval(rnd_second, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd_second, 20261128));
  PetscCall(PetscRandomSeed(rnd_second));

  for (PetscInt s = 0; s < nstates; s++) {
    PetscCall(PetscRandomGetValueReal(rnd, &t));
    t = PetscAbsReal(t);
    for (PetscInt i = 0; i < n; i++) PetscCall(PetscRandomGetValueReal(rnd, &u[i]));
    for (PetscInt i = 0; i < n; i++) PetscCall(PetscRandomGetValueReal(rnd, &udot[i]));
    for (PetscInt i = 0; i < n; i++) {
      u[i] *= state_scale;
      udot[i] *= state_scale;
    }
    for (PetscInt k = 0; k < np; k++) {
      PetscReal r;

      PetscCall(PetscRandomGetValueReal(rnd, &r));
      p[k] = PetscMin(info[k].upper, PetscMax(info[k].lower, p0[k] * (1 + 0.1 * r)));
    }
    PetscCall(MbsModelSetParameters(model, p));

    /* dF/dU' = J(shift = 1) - J(shift = 0), exact because J is affine in the shift */
    PetscCall(Jacobian(model, t, u, udot, 0.0, J0));
    PetscCall(Jacobian(model, t, u, udot, 1.0, J1));
    for (PetscInt i = 0; i < n * n; i++) J[i] = J1[i] - J0[i];
    for (PetscInt j = 0; j < n; j++) {
      PetscCall(ResidualDifference(model, WRT_U, j, t, u, udot, p, col));
      PetscCall(CompareColumn(&test, "dF/dU", j, n, &J0[j * n], col, MaxAbs(n * n, J0)));
      PetscCall(ResidualDifference(model, WRT_UDOT, j, t, u, udot, p, col));
      PetscCall(CompareColumn(&test, "dF/dU'", j, n, &J[j * n], col, MaxAbs(n * n, J)));
    }
    if (!integration_form && !rate_form) { /* the mass matrix the explicit form factors: the model's own where it has one */
      PetscCall(MbsModelMass(model, t, u, udot, E, J1));
      PetscCall(CompareColumn(&test, "mass matrix dF/dU'", 0, n * n, E, J, MaxAbs(n * n, J)));
    }
    /* a shift other than 1 must combine the two linearly */
    PetscCall(Jacobian(model, t, u, udot, 37.5, J1));
    for (PetscInt i = 0; i < n * n; i++) J[i] = J0[i] + 37.5 * J[i];
    PetscCall(CompareColumn(&test, "dF/dU + 37.5 dF/dU'", 0, n * n, J1, J, MaxAbs(n * n, J1)));
    if (MbsModelHasSparseJacobian(model) && !integration_form && !rate_form) PetscCall(CompareSparse(&test, model, t, u, udot, 37.5, J1));

    PetscCall(JacobianP(model, t, u, udot, Jp));
    for (PetscInt k = 0; k < np; k++) {
      if (!info[k].identifiable) continue;
      PetscCall(ResidualDifference(model, WRT_P, k, t, u, udot, p, col));
      PetscCall(CompareColumn(&test, "dF/dp", k, n, &Jp[k * n], col, MaxAbs(n * np, Jp)));
    }

    for (PetscInt k = 0; k < nsecond; k++) PetscCall(CheckSecond(&test, model, t, u, udot, p, second_index[k], rnd_second, state_scale));

    PetscCall(MbsModelOutput(model, t, u, &y, dydu));
    for (PetscInt j = 0; j < n; j++) PetscCall(OutputDifference(model, t, u, NULL, j, &col[j]));
    PetscCall(CompareColumn(&test, "dy/dU", 0, n, dydu, col, MaxAbs(n, dydu)));
    PetscCall(MbsModelOutputP(model, t, u, dydp));
    for (PetscInt k = 0; k < np; k++) { /* as dF/dp: the parameters that can be identified */
      col[k] = dydp[k];
      if (info[k].identifiable) PetscCall(OutputDifference(model, t, u, p, k, &col[k]));
    }
    PetscCall(CompareColumn(&test, "dy/dp", 0, np, dydp, col, MaxAbs(np, dydp)));

    if (rate_form) { /* the rate solves F(U, g(U)) = 0: the explicit form's own factorisation against the model's residual */
      PetscReal scale;

      PetscCall(PetscArrayzero(J0, n));
      PetscCall(MbsModelResidual(model, t, u, J0, J1));
      scale = PetscMax(MaxAbs(n, J1), 1);
      PetscCall(MbsModelRate(model, t, u, J0));
      PetscCall(MbsModelResidual(model, t, u, J0, J1));
      test.checks++;
      if (MaxAbs(n, J1) > 1e-10 * scale) {
        test.failures++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL F(U, g(U)) = %.3e, not 0 to 1e-10 of |F(U, 0)| = %.3e\n", (double)MaxAbs(n, J1), (double)scale));
      }
      PetscCall(CheckRateAdjoint(&test, model, t, u));
    }
  }
  if (!integration_form && !rate_form && !nsensitivity) {
    PetscCall(MbsModelSetParameters(model, p0));
    PetscCall(PetscArraycpy(p, p0, np));
    PetscCall(CheckInitialStateP(&test, model, info, p));
  }
  if (!integration_form && !rate_form && n == 2 * nq_model) { /* a DAE's linearisation (engine4: constraints eliminated) is checked by its modes */
    PetscInt   nq;
    PetscReal *M, *C, *K;

    PetscCall(MbsModelSetParameters(model, p0));
    PetscCall(PetscArrayzero(u, n));
    PetscCall(PetscArrayzero(udot, n));
    PetscCall(MbsModelLinearize(model, &nq, &M, &C, &K));
    PetscCall(MbsModelJacobian(model, 0, u, udot, 0.0, J0));
    PetscCall(MbsModelJacobian(model, 0, u, udot, 1.0, J1));
    for (PetscInt i = 0; i < nq; i++) {
      for (PetscInt j = 0; j < nq; j++) {
        PetscInt r = nq + i;

        PetscCall(MbsTestClose(&test, "linearisation M = dF_v/dU'_v", M[i + j * nq], J1[r + (nq + j) * n] - J0[r + (nq + j) * n], 1e-12, 1e-14));
        PetscCall(MbsTestClose(&test, "linearisation C = dF_v/dU_v", C[i + j * nq], J0[r + (nq + j) * n], 1e-12, 1e-14));
        PetscCall(MbsTestClose(&test, "linearisation K = dF_v/dU_q", K[i + j * nq], J0[r + j * n], 1e-12, 1e-14));
      }
    }
    PetscCall(PetscFree3(M, C, K));
  }
  {
    const char *type;
    char        line[128];

    PetscCall(MbsModelGetType(model, &type));
    PetscCall(PetscSNPrintf(line, sizeof(line), "%s: %" PetscInt_FMT " Jacobian entries at %" PetscInt_FMT " random states", type, test.checks, nstates));
    PetscCall(MbsTestTrue(&test, line, (PetscBool)(test.failures == 0)));
  }
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscRandomDestroy(&rnd_second));
  PetscCall(PetscFree6(u, udot, p, p0, J, E));
  PetscCall(PetscFree6(J0, J1, Jp, col, dydu, dydp));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(MbsModelDestroy(&base));
  PetscCall(PetscFinalize());
  return 0;
}
