static const char help[] = "Checks that the explicit form follows every change of a model's input force.\n";

/*
  The explicit form caches the rate g of the last (t, U, p). The rate is defined by the model's own residual,

    F(t, U, g, p) = 0   with the force F(t) that drives the model now,

  so after each change of the input (a nodal input, a sine, the model's own excitation, a controller's force, and a
  sensitivity-extended model whose base model changes its input, as the sine comparison of mbsid design does) the
  rate at the same (t, U, p) must satisfy that residual to rounding, |F| <= 1e-12 (|E g| + |force|). A stale rate
  leaves the old force's difference, F_new - F_old, in the force coordinate's row.

  Then two solves at the same parameters from the same start with different nodal inputs (F_0 too): the second must end where a
  model that never saw the first input ends, bit for bit (the integrator's first stage is at the cached (t0, U0, p)).
*/
#include "mbstest.h"

/* The largest entry of F(t, U, g) and the scale it is measured against */
static PetscErrorCode RateResidual(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *residual, PetscReal *scale)
{
  PetscInt   n;
  PetscReal *g, *f, *E, *work, force;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCall(PetscMalloc4(n, &g, n, &f, n * n, &E, n * n, &work));
  PetscCall(MbsModelRate(model, t, u, g));
  PetscCall(MbsModelResidual(model, t, u, g, f));
  PetscCall(MbsModelMass(model, t, u, g, E, work));
  PetscCall(MbsModelExcitation(model, t, &force));
  *residual = 0;
  *scale    = PetscAbsReal(force);
  for (PetscInt i = 0; i < n; i++) {
    PetscReal Eg = 0;

    for (PetscInt j = 0; j < n; j++) Eg += PetscAbsReal(E[i + j * n] * g[j]);
    *residual = PetscMax(*residual, PetscAbsReal(f[i]));
    *scale    = PetscMax(*scale, Eg);
  }
  PetscCall(PetscFree4(g, f, E, work));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckRate(MbsTest *test, MbsModel model, PetscReal t, const PetscReal u[], const char what[])
{
  PetscReal residual = 0, scale = 0;
  char      label[128];

  PetscFunctionBeginUser;
  PetscCall(RateResidual(model, t, u, &residual, &scale));
  PetscCall(PetscSNPrintf(label, sizeof(label), "|F(t, U, g)| after %s", what));
  PetscCall(MbsTestClose(test, label, residual, 0, 0, 1e-12 * scale));
  PetscFunctionReturn(0);
}

/* y(tf) of a solve with the nodal input F at the times tn */
static PetscErrorCode SolveEnd(MbsModel model, const PetscReal tn[], const PetscReal F[], PetscReal *y_end)
{
  MbsSignal signal;

  PetscFunctionBeginUser;
  PetscCall(MbsModelSetNodalInput(model, 5, tn, F));
  PetscCall(MbsSimulate(model, NULL, NULL, NULL, &signal));
  *y_end = signal.y[signal.n - 1];
  PetscCall(MbsSignalDestroy(&signal));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel  model, fresh, ext;
  MbsTest   test = {0, 0};
  PetscInt  n, b;
  PetscReal t0, tf, t, u[4], u0[4], udot0[4], tn[5], Fn[5], y_end, y_fresh;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetType(model, "cart_pendulum"));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCheck(n == 4, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "cart_pendulum has %" PetscInt_FMT " states, the test expects 4", n);
  PetscCall(MbsModelGetTimeSpan(model, &t0, &tf, NULL));
  t = t0 + 0.3 * (tf - t0); /* where neither the sine nor the nodal input vanishes */
  PetscCall(MbsModelInitialState(model, t0, u0, udot0));
  for (PetscInt i = 0; i < n; i++) u[i] = 0.1 * (i + 1); /* the pendulum swinging, the cart moving */
  for (PetscInt k = 0; k < 5; k++) {
    tn[k] = t0 + k * (tf - t0) / 4;
    Fn[k] = 1.0 + k;
  }

  PetscCall(MbsModelSetSineInput(model, 2.0));
  PetscCall(CheckRate(&test, model, t, u, "a sine of 2 N"));
  PetscCall(MbsModelSetSineInput(model, 4.0));
  PetscCall(CheckRate(&test, model, t, u, "a sine of 4 N"));
  PetscCall(MbsModelSetNodalInput(model, 5, tn, Fn));
  PetscCall(CheckRate(&test, model, t, u, "a nodal input"));
  PetscCall(CheckRate(&test, model, t0, u0, "a nodal input, at (t0, U0)"));
  Fn[0] = -3.0;
  PetscCall(MbsModelSetNodalInput(model, 5, tn, Fn));
  PetscCall(CheckRate(&test, model, t0, u0, "another F_0 of the nodal input"));
  PetscCall(MbsModelClearInput(model));
  PetscCall(CheckRate(&test, model, t0, u0, "clearing the input"));
  PetscCall(MbsModelSetControlForce(model, 0, 0.5));
  PetscCall(CheckRate(&test, model, t0, u0, "a controller's force"));
  PetscCall(MbsModelSetControlForce(model, 0, 0));

  /* the sensitivity-extended model keeps the nodal forces as parameters: a sine in the base model leaves them alone */
  PetscCall(MbsModelSetNodalInput(model, 5, tn, Fn));
  PetscCall(MbsModelGetParameterIndex(model, "dp", &b));
  PetscCall(MbsModelCreateSensitivity(model, 1, &b, &ext));
  {
    PetscReal z[8] = {0};

    PetscCall(PetscArraycpy(z, u, n));
    PetscCall(CheckRate(&test, ext, t, z, "extending a nodal input"));
    PetscCall(MbsModelSetSineInput(model, 2.0));
    PetscCall(CheckRate(&test, ext, t, z, "a sine in the base model"));
  }
  PetscCall(MbsModelDestroy(&ext));

  /* two solves at the same parameters: the first stage of the second is at the (t0, U0, p) of the last rate */
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &fresh));
  PetscCall(MbsModelSetType(fresh, "cart_pendulum"));
  PetscCall(MbsModelSetFromOptions(fresh));
  PetscCall(SolveEnd(model, tn, Fn, &y_end));
  {
    PetscReal g[4];

    PetscCall(MbsModelRate(model, t0, u0, g));
  }
  for (PetscInt k = 0; k < 5; k++) Fn[k] = 2.0 - k;
  PetscCall(SolveEnd(model, tn, Fn, &y_end));
  PetscCall(SolveEnd(fresh, tn, Fn, &y_fresh));
  PetscCall(MbsTestClose(&test, "y(tf) of a second solve, another input", y_end, y_fresh, 0, 0));
  PetscCall(MbsModelDestroy(&fresh));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
