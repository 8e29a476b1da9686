static const char help[] = "Checks the modes of the linearised models (SLEPc PEP) against closed forms and a dense solve of the companion form.\n"
                           "Options: -model NAME, -check companion|oscillator2|chain, and any -pep_* / -st_* option.\n";

/*
  -check companion (any model): every eigenvalue the PEP returns equals one of the generalised eigenproblem
    [0 I; -K -C] z = lambda [I 0; 0 M] z, solved densely by SLEPc's EPSLAPACK, to 1e-8 relative; with the default
    dense PEP all 2 nq eigenvalues are there.
  -check oscillator2: with proportional damping D = beta K (d_i = beta c_i), m1 = m2 = m, the closed form
    w^2 = (c1 + 2 c2 -+ sqrt((c1 + 2 c2)^2 - 4 c1 c2)) / 2m, zeta = beta w / 2, to 1e-8.
  -check chain: cart_pendulum_chain at its true parameters has the spec's modes (section 9): swing 0.170 Hz, bending
    1.36 and 3.90 Hz (the spec's rounding: 0.5 %), one rigid-body zero and the real eigenvalue near -d_c/M_xx.
*/
#include "mbstest.h"
#include <slepceps.h>

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
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, &A));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, &B));
  for (PetscInt i = 0; i < nq; i++) {
    PetscCall(MatSetValue(A, i, nq + i, 1.0, INSERT_VALUES));
    PetscCall(MatSetValue(B, i, i, 1.0, INSERT_VALUES));
    for (PetscInt j = 0; j < nq; j++) {
      PetscCall(MatSetValue(A, nq + i, j, -K[i + j * nq], INSERT_VALUES));
      PetscCall(MatSetValue(A, nq + i, nq + j, -C[i + j * nq], INSERT_VALUES));
      PetscCall(MatSetValue(B, nq + i, nq + j, M[i + j * nq], INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(EPSCreate(PETSC_COMM_SELF, &eps));
  PetscCall(EPSSetOperators(eps, A, B));
  PetscCall(EPSSetProblemType(eps, EPS_GNHEP));
  PetscCall(EPSSetType(eps, EPSLAPACK));
  PetscCall(EPSSetDimensions(eps, n, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSolve(eps));
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
  } else if (!strcmp(check, "chain")) {
    const PetscReal want[3] = {0.170, 1.36, 3.90};
    PetscReal       p[9];

    PetscCall(MbsModelGetParameters(model, p)); /* mc, m, l, g, cf, df, dc, F0, tp */
    PetscCall(MbsTestTrue(&test, "three oscillatory modes, two real eigenvalues", (PetscBool)(result.nmode == 3 && result.nreal == 2)));
    for (PetscInt i = 0; i < 3 && i < result.nmode; i++) PetscCall(MbsTestClose(&test, "swing / bending 1 / bending 2 [Hz]", result.frequency_hz[i], want[i], 5e-3, 0));
    PetscCall(MbsTestTrue(&test, "one rigid-body (zero) mode", (PetscBool)(result.nzero == 1)));
    if (result.nreal == 2) PetscCall(MbsTestClose(&test, "real eigenvalue ~ -d_c/M_xx [1/s]", result.real_eigenvalues[1], -p[6] / (p[0] + 3 * p[1]), 0.05, 0));
  } else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -check %s", check);
  PetscCall(MbsTestFinish(&test));
  PetscCall(MbsEigenResultReset(&result));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(SlepcFinalize());
  return 0;
}
