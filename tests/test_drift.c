static const char help[] = "Checks that a model described in a file keeps its constraints over a simulation (-model_file FILE).\n";

/*
  The GGL form of model_described.c holds Phi(q) = 0 and Phi_q v = 0 as algebraic rows at every step; without the
  stabilising multiplier mu the index-2 form would drift off Phi(q) = 0. Over the model's run the largest |Phi(q)|
  (orthonormality of every rigid body's axes and every joint) must stay below -position_tol and |Phi_q v| below
  -velocity_tol, both set from the nonlinear solver's tolerance, and at t0 (the consistent start, which a joint moved
  by its parameters projects onto the joints) both below -start_tol; the largest |mu| is reported. The rows are the
  residual's last 2 nc, which do not depend on U'. With n = 2 nq + 2 nc states and nq - nc free coordinates (the
  model's linearisation size), nc = (n/2 - (nq - nc)) / 2. A planar model (-model_planar, a file's planar:) holds only
  its kept rows in its residual: with -check_3d its state is also expanded to the 3D one (MbsModelDescribedFullState)
  and every row of the same file in 3D (-model_planar none), the dropped ones too, evaluated there.
*/
#include "mbstest.h"

typedef struct {
  PetscInt   nq, nc;
  PetscReal *udot, *f;
  PetscReal  position, velocity, mu;
  PetscReal  start[2]; /* |Phi(q)|, |Phi_q v| at the first step (t0): the consistent start */
  MbsModel   full;     /* with -check_3d: the file's model in 3D, its nq, nc, state, U' = 0, residual and largest rows */
  PetscInt   full_nq, full_nc;
  PetscReal *full_u, *full_udot, *full_f, full_rows[2];
} DriftMonitor;

/* The sizes nq, nc of a model from n = 2 nq + 2 nc (no internal states) and its nq - nc free motions */
static PetscErrorCode RowSizes(MbsModel model, PetscInt *n, PetscInt *nq, PetscInt *nc)
{
  PetscInt free;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, n, &free, NULL));
  *nc = (*n / 2 - free) / 2;
  *nq = *n / 2 - *nc;
  PetscFunctionReturn(0);
}

static PetscErrorCode MonitorDrift(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], void *ctx)
{
  DriftMonitor *mon = (DriftMonitor *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsModelResidual(model, t, u, mon->udot, mon->f));
  for (PetscInt r = 0; r < mon->nc; r++) {
    mon->velocity = PetscMax(mon->velocity, PetscAbsReal(mon->f[2 * mon->nq + r]));
    mon->position = PetscMax(mon->position, PetscAbsReal(mon->f[2 * mon->nq + mon->nc + r]));
    mon->mu       = PetscMax(mon->mu, PetscAbsReal(u[2 * mon->nq + mon->nc + r]));
    if (step) continue;
    mon->start[0] = PetscMax(mon->start[0], PetscAbsReal(mon->f[2 * mon->nq + mon->nc + r]));
    mon->start[1] = PetscMax(mon->start[1], PetscAbsReal(mon->f[2 * mon->nq + r]));
  }
  if (!mon->full) PetscFunctionReturn(0);
  PetscCall(MbsModelDescribedFullState(model, u, NULL, mon->full_u));
  PetscCall(MbsModelResidual(mon->full, t, mon->full_u, mon->full_udot, mon->full_f));
  for (PetscInt r = 0; r < mon->full_nc; r++) {
    mon->full_rows[0] = PetscMax(mon->full_rows[0], PetscAbsReal(mon->full_f[2 * mon->full_nq + mon->full_nc + r]));
    mon->full_rows[1] = PetscMax(mon->full_rows[1], PetscAbsReal(mon->full_f[2 * mon->full_nq + r]));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel     model;
  MbsSignal    signal;
  MbsTest      test = {0, 0};
  DriftMonitor mon  = {0};
  PetscInt     n, expect_states = -1, full_n;
  PetscBool    check_3d     = PETSC_FALSE;
  PetscReal    position_tol = 1e-10, velocity_tol = 1e-10, start_tol = 1e-12;
  char         line[128];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Drift test", "");
  PetscCall(PetscOptionsReal("-position_tol", "Largest |Phi(q)| allowed", "", position_tol, &position_tol, NULL));
  PetscCall(PetscOptionsReal("-velocity_tol", "Largest |Phi_q v| allowed", "", velocity_tol, &velocity_tol, NULL));
  PetscCall(PetscOptionsInt("-expect_states", "The model's number of states n, counted by hand (a planar model's: its free coordinates and kept rows)", "", expect_states, &expect_states, NULL));
  PetscCall(PetscOptionsBool("-check_3d", "Also every row of the model file in 3D at the state expanded from the planar one's", "", check_3d, &check_3d, NULL));
  PetscCall(PetscOptionsReal("-start_tol", "Largest |Phi(q)| and |Phi_q v| allowed at t0 (the consistent start)", "", start_tol, &start_tol, NULL));
  PetscOptionsEnd();
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(RowSizes(model, &n, &mon.nq, &mon.nc));
  if (check_3d) { /* the same file in 3D */
    PetscCall(PetscOptionsSetValue(NULL, "-model_planar", "none"));
    PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &mon.full));
    PetscCall(MbsModelSetFromOptions(mon.full));
    PetscCall(RowSizes(mon.full, &full_n, &mon.full_nq, &mon.full_nc));
    PetscCall(MbsModelDescribedFullState(model, NULL, &n, NULL));
    PetscCheck(n == full_n, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The planar model's 3D state has %" PetscInt_FMT " entries, the 3D model %" PetscInt_FMT, n, full_n);
    PetscCall(PetscCalloc3(full_n, &mon.full_u, full_n, &mon.full_udot, full_n, &mon.full_f));
    PetscCall(RowSizes(model, &n, &mon.nq, &mon.nc));
  }
  if (expect_states >= 0) PetscCall(MbsTestClose(&test, "states n of the model", n, expect_states, 0, 0));
  PetscCall(PetscCalloc2(n, &mon.udot, n, &mon.f));
  PetscCall(MbsSimulate(model, NULL, MonitorDrift, &mon, &signal));
  PetscCall(PetscSNPrintf(line, sizeof(line), "max |Phi(q)| of %" PetscInt_FMT " constraints over %" PetscInt_FMT " steps", mon.nc, signal.steps));
  PetscCall(MbsTestClose(&test, line, mon.position, 0, 0, position_tol));
  PetscCall(MbsTestClose(&test, "max |Phi_q v|", mon.velocity, 0, 0, velocity_tol));
  PetscCall(MbsTestClose(&test, "max |Phi(q)| at t0", mon.start[0], 0, 0, start_tol));
  PetscCall(MbsTestClose(&test, "max |Phi_q v| at t0", mon.start[1], 0, 0, start_tol));
  if (mon.full) {
    PetscCall(PetscSNPrintf(line, sizeof(line), "max |Phi(q)| of all %" PetscInt_FMT " rows in 3D, the dropped ones too", mon.full_nc));
    PetscCall(MbsTestClose(&test, line, mon.full_rows[0], 0, 0, start_tol));
    PetscCall(MbsTestClose(&test, "max |Phi_q v| of all rows in 3D", mon.full_rows[1], 0, 0, start_tol));
    PetscCall(PetscFree3(mon.full_u, mon.full_udot, mon.full_f));
    PetscCall(MbsModelDestroy(&mon.full));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "     max |mu| of the GGL stabilisation %.3e (the drift of the trapezoidal rule it absorbs)\n", (double)mon.mu));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFree2(mon.udot, mon.f));
  PetscCall(MbsSignalDestroy(&signal));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscFinalize());
  return 0;
}
