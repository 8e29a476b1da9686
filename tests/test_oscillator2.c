static const char help[] = "Compares the oscillator2 free vibration with its closed-form solution.\n";

/*
  oscillator2 with F = 0, M = diag(m1, m2) and proportional damping
  C = alpha K (alpha = d1/c1 = d2/c2; alpha = 0 undamped). With the mass-normalised modes of
  K phi = w^2 M phi every mode obeys eta'' + alpha w^2 eta' + w^2 eta = 0, whose solution from
  (eta0, eta0') is

    eta(t) = exp(-z w t) [eta0 cos(wd t) + (eta0' + z w eta0)/wd sin(wd t)],  z = alpha w/2, wd = w sqrt(1 - z^2),

  and x = Phi eta. Every simulated sample of x1 and x2 must match to -max_error (1e-6) relative to max |x|: on fixed
  steps a tight bound tells the order of a method (Tsitouras's fifth-order pair against a fourth-order one).
*/
#include "mbstest.h"

typedef struct {
  PetscReal w[2], phi[2][2], eta0[2], etadot0[2], alpha;
  PetscReal max_err[2], max_abs[2];
} ClosedForm;

static void ClosedFormState(const ClosedForm *cf, PetscReal t, PetscReal x[2])
{
  x[0] = x[1] = 0;
  for (PetscInt m = 0; m < 2; m++) {
    PetscReal w = cf->w[m], z = 0.5 * cf->alpha * w, wd = w * PetscSqrtReal(1 - z * z);
    PetscReal eta = PetscExpReal(-z * w * t) * (cf->eta0[m] * PetscCosReal(wd * t) + (cf->etadot0[m] + z * w * cf->eta0[m]) / wd * PetscSinReal(wd * t));

    x[0] += cf->phi[0][m] * eta;
    x[1] += cf->phi[1][m] * eta;
  }
}

static PetscErrorCode CompareState(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], void *ctx)
{
  ClosedForm *cf = (ClosedForm *)ctx;
  PetscReal   x[2];

  PetscFunctionBeginUser;
  ClosedFormState(cf, t, x);
  for (PetscInt i = 0; i < 2; i++) {
    cf->max_err[i] = PetscMax(cf->max_err[i], PetscAbsReal(u[i] - x[i]));
    cf->max_abs[i] = PetscMax(cf->max_abs[i], PetscAbsReal(x[i]));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel   model;
  MbsSignal  signal;
  MbsTest    test = {0, 0};
  ClosedForm cf;
  PetscReal  p[6], u0[4], udot0[4], K[2][2], m1, m2, c1, c2, d1, d2, tr, det, disc, max_error = 1e-6;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "oscillator2 closed-form test", "");
  PetscCall(PetscOptionsReal("-max_error", "Largest error relative to max |x| accepted", "", max_error, &max_error, NULL));
  PetscOptionsEnd();
  PetscCall(PetscMemzero(&cf, sizeof(cf)));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetType(model, "oscillator2"));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsModelGetParameters(model, p));
  m1 = p[0], m2 = p[1], c1 = p[2], c2 = p[3], d1 = p[4], d2 = p[5];
  PetscCheck(PetscAbsReal(d1 * c2 - d2 * c1) <= 1e-14 * c1 * c2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "The closed form needs proportional damping d1/c1 = d2/c2");
  cf.alpha = d1 / c1;

  /* mass-normalised modes: symmetric K~ = M^-1/2 K M^-1/2 */
  K[0][0] = (c1 + c2) / m1;
  K[1][1] = c2 / m2;
  K[0][1] = K[1][0] = -c2 / PetscSqrtReal(m1 * m2);
  tr                = K[0][0] + K[1][1];
  det               = K[0][0] * K[1][1] - K[0][1] * K[1][0];
  disc              = PetscSqrtReal(0.25 * tr * tr - det);
  for (PetscInt m = 0; m < 2; m++) {
    PetscReal lambda = 0.5 * tr + (m ? disc : -disc), v0 = K[0][1], v1 = lambda - K[0][0], norm = PetscSqrtReal(v0 * v0 + v1 * v1);

    cf.w[m]      = PetscSqrtReal(lambda);
    cf.phi[0][m] = v0 / norm / PetscSqrtReal(m1);
    cf.phi[1][m] = v1 / norm / PetscSqrtReal(m2);
  }
  PetscCall(MbsModelInitialState(model, 0, u0, udot0));
  for (PetscInt m = 0; m < 2; m++) { /* eta = Phi^T M x */
    cf.eta0[m]    = cf.phi[0][m] * m1 * u0[0] + cf.phi[1][m] * m2 * u0[1];
    cf.etadot0[m] = cf.phi[0][m] * m1 * u0[2] + cf.phi[1][m] * m2 * u0[3];
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "natural frequencies %.10g, %.10g Hz, alpha %g s\n", (double)(cf.w[0] / (2 * PETSC_PI)), (double)(cf.w[1] / (2 * PETSC_PI)), (double)cf.alpha));
  PetscCall(MbsTestTrue(&test, "initial state is not at rest", (PetscBool)(cf.eta0[0] != 0 || cf.eta0[1] != 0 || cf.etadot0[0] != 0 || cf.etadot0[1] != 0)));

  PetscCall(MbsSimulate(model, NULL, CompareState, &cf, &signal));
  PetscCall(MbsTestClose(&test, "max |x1 - closed form| / max |x1|", cf.max_err[0] / cf.max_abs[0], 0, 0, max_error));
  PetscCall(MbsTestClose(&test, "max |x2 - closed form| / max |x2|", cf.max_err[1] / cf.max_abs[1], 0, 0, max_error));
  {
    PetscReal x[2];

    ClosedFormState(&cf, signal.t[signal.n - 1], x);
    PetscCall(MbsTestClose(&test, "output y = x2 at the end", signal.y[signal.n - 1], x[1], max_error, max_error * cf.max_abs[1]));
  }
  PetscCall(MbsTestFinish(&test));
  PetscCall(MbsSignalDestroy(&signal));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscFinalize());
  return 0;
}
