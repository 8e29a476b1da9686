static const char help[] = "Checks that engine4's slider-crank constraints hold over a run-up, at position and velocity level.\n";

/*
  engine4.md sections 8 and 13: the position-level constraint residual max |C(q)| stays below 1e-8 m over the
  run-up, and the velocity-level one max |C_q v| below 1e-8 m/s x (speed in rad/s). The stabilising multiplier mu
  of the GGL form, zero on the exact solution, absorbs the O(h^2) drift of the trapezoidal rule; it is reported. The residual rows 2n+1..2n+16 of the DAE are
  C(q) and do not depend on U', so the model's own residual evaluates them. Run the model's options, e.g. a fast
  run-up -ramp_rpm 1000,6500 -ramp_time 0.05,0.25 -time_span 0,0.3.
*/
#include "mbstest.h"

typedef struct {
  PetscReal *udot, *f;
  PetscReal  position, velocity, mu; /* largest |C|, |C_q v|, |mu| so far */
} ConstraintMonitor;

#define NC 26
#define NL 16

static PetscErrorCode MonitorConstraints(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], void *ctx)
{
  ConstraintMonitor *mon = (ConstraintMonitor *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsModelResidual(model, t, u, mon->udot, mon->f));
  for (PetscInt j = 0; j < NL; j++) {
    mon->velocity = PetscMax(mon->velocity, PetscAbsReal(mon->f[2 * NC + j]));
    mon->position = PetscMax(mon->position, PetscAbsReal(mon->f[2 * NC + NL + j]));
    mon->mu       = PetscMax(mon->mu, PetscAbsReal(u[2 * NC + NL + j]));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel          model;
  MbsSignal         signal;
  MbsTest           test = {0, 0};
  ConstraintMonitor mon  = {NULL, NULL, 0, 0, 0};
  PetscInt          n;
  char              line[128];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetType(model, "engine4"));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCheck(n == 2 * NC + 2 * NL, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "engine4 has %d states, this test expects %d", (int)n, 2 * NC + 2 * NL);
  PetscCall(PetscCalloc2(n, &mon.udot, n, &mon.f));
  PetscCall(MbsSimulate(model, NULL, MonitorConstraints, &mon, &signal));
  PetscCall(PetscSNPrintf(line, sizeof(line), "max |C(q)| over %" PetscInt_FMT " steps [m]", signal.steps));
  PetscCall(MbsTestClose(&test, line, mon.position, 0, 0, 1e-8));
  PetscCall(MbsTestClose(&test, "max |C_q v| [m/s]", mon.velocity, 0, 0, 1e-8 * 2 * PETSC_PI * 6500 / 60));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "     max |mu| of the GGL stabilisation %.3e (the trapezoidal rule's O(h^2) drift it absorbs)\n", (double)mon.mu));
  PetscCall(MbsTestTrue(&test, "the twist stays finite", (PetscBool)!signal.nonfinite));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFree2(mon.udot, mon.f));
  PetscCall(MbsSignalDestroy(&signal));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscFinalize());
  return 0;
}
