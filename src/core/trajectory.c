/*
  TSTrajectory "stages": the forward trajectory kept in memory for its adjoint, mbsid's own type registered with PETSc
  (-ts_trajectory_type stages, the default of every gradient).

  For each step point n it keeps t_n, U_n and the s stages Y_n,i of the step that ends there (TSGetStages: a
  Runge-Kutta method's s stages, an endpoint theta method's U_n-1 and U_n, a midpoint one's stage), all in one
  contiguous block of (1 + s) n entries per step that doubles when full: a step costs s + 1 copies of n numbers.
  PETSc 3.18's memory trajectory creates s + 1 new vectors at every step (VecDuplicateVecs, each a PETSc object with
  its layout and composed functions) and destroys them one by one after the sweep, which for a small model (the
  chain's 8 states) took as long as the adjoint steps themselves, and for powertrain_mounts' CN gradient (72 states)
  some 5 us of its 60 us adjoint step.

  TSAdjointSolve asks for the step points from the last to the first; Get(n) restores U_n, the stages of step n, the
  time t_n and the step t_n-1 - t_n (negative: the sweep runs backwards): what TSRK's and TSTHETA's adjoint steps read.
  A one-stage theta method's adjoint recovers U_n-1 from the stage and U_n: both are restored (the memory trajectory
  restores only the stage, simulate.c).
*/
#include "core/coreimpl.h"
#include <petsc/private/tsimpl.h> /* a TSTrajectory implementation fills the type's method table */

typedef struct {
  PetscInt     n, nstage;     /* entries of a state, stages of a step */
  PetscInt     nstep, nalloc; /* step points kept (0 .. nstep - 1), room for */
  PetscReal   *t;             /* times of the step points, nalloc */
  PetscScalar *data;          /* (1 + nstage) n per step point: U_n, then the stages of the step ending at t_n */
} MbsTrajectoryStages;

static PetscErrorCode MbsTrajectoryStagesGrow_Private(MbsTrajectoryStages *tr, PetscInt nstep)
{
  PetscInt     nalloc = PetscMax(1024, tr->nalloc), size = (1 + tr->nstage) * tr->n;
  PetscReal   *t;
  PetscScalar *data;

  PetscFunctionBeginUser;
  while (nalloc < nstep) nalloc *= 2;
  if (nalloc == tr->nalloc) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(nalloc, &t, nalloc * size, &data));
  PetscCall(PetscArraycpy(t, tr->t, tr->nstep));
  PetscCall(PetscArraycpy(data, tr->data, tr->nstep * size));
  PetscCall(PetscFree2(tr->t, tr->data));
  tr->t      = t;
  tr->data   = data;
  tr->nalloc = nalloc;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectorySetUp_Stages(TSTrajectory tj, TS ts)
{
  MbsTrajectoryStages *tr = (MbsTrajectoryStages *)tj->data;
  PetscBool            kept;
  TSType               type;
  Vec                  U;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &kept, TSRK, TSTHETA, TSCN, TSBEULER, ""));
  PetscCall(TSGetType(ts, &type));
  PetscCheck(kept, PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_trajectory_type stages keeps the steps of Runge-Kutta and theta methods only, not of -ts_type %s: drop it (the default keeps what the method needs) or give memory or basic", type);
  PetscCall(TSGetSolution(ts, &U));
  PetscCall(VecGetLocalSize(U, &tr->n));
  PetscCall(TSGetStages(ts, &tr->nstage, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectorySet_Stages(TSTrajectory tj, TS ts, PetscInt stepnum, PetscReal time, Vec X)
{
  MbsTrajectoryStages *tr   = (MbsTrajectoryStages *)tj->data;
  PetscInt             size = (1 + tr->nstage) * tr->n, nstage;
  PetscScalar         *slot;
  const PetscScalar   *x;
  Vec                 *Y;

  PetscFunctionBeginUser;
  PetscCall(MbsTrajectoryStagesGrow_Private(tr, stepnum + 1));
  slot = tr->data + stepnum * size;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(PetscArraycpy(slot, x, tr->n));
  PetscCall(VecRestoreArrayRead(X, &x));
  if (stepnum > 0) { /* step point 0 ends no step */
    PetscCall(TSGetStages(ts, &nstage, &Y));
    for (PetscInt i = 0; i < nstage; i++) {
      PetscCall(VecGetArrayRead(Y[i], &x));
      PetscCall(PetscArraycpy(slot + (1 + i) * tr->n, x, tr->n));
      PetscCall(VecRestoreArrayRead(Y[i], &x));
    }
  }
  tr->t[stepnum] = time;
  tr->nstep      = stepnum + 1; /* a step set again (a restarted solve) drops those after it */
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryGet_Stages(TSTrajectory tj, TS ts, PetscInt stepnum, PetscReal *time)
{
  MbsTrajectoryStages *tr   = (MbsTrajectoryStages *)tj->data;
  PetscInt             size = (1 + tr->nstage) * tr->n, nstage;
  const PetscScalar   *slot;
  PetscScalar         *x;
  Vec                  U, *Y;

  PetscFunctionBeginUser;
  PetscCheck(stepnum < tr->nstep, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Step %" PetscInt_FMT " was not kept: the trajectory has %" PetscInt_FMT " step points", stepnum, tr->nstep);
  slot = tr->data + stepnum * size;
  PetscCall(TSGetSolution(ts, &U));
  PetscCall(VecGetArrayWrite(U, &x));
  PetscCall(PetscArraycpy(x, slot, tr->n));
  PetscCall(VecRestoreArrayWrite(U, &x));
  if (stepnum > 0) {
    PetscCall(TSGetStages(ts, &nstage, &Y));
    for (PetscInt i = 0; i < nstage; i++) {
      PetscCall(VecGetArrayWrite(Y[i], &x));
      PetscCall(PetscArraycpy(x, slot + (1 + i) * tr->n, tr->n));
      PetscCall(VecRestoreArrayWrite(Y[i], &x));
    }
    PetscCall(TSSetTimeStep(ts, tr->t[stepnum - 1] - tr->t[stepnum]));
    ts->ptime_prev = tr->t[stepnum - 1];
  }
  *time = tr->t[stepnum];
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryReset_Stages(TSTrajectory tj)
{
  MbsTrajectoryStages *tr = (MbsTrajectoryStages *)tj->data;

  PetscFunctionBeginUser;
  tr->nstep = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryDestroy_Stages(TSTrajectory tj)
{
  MbsTrajectoryStages *tr = (MbsTrajectoryStages *)tj->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree2(tr->t, tr->data));
  PetscCall(PetscFree(tj->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryCreate_Stages(TSTrajectory tj, TS ts)
{
  MbsTrajectoryStages *tr;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&tr));
  tj->data          = tr;
  tj->ops->setup    = TSTrajectorySetUp_Stages;
  tj->ops->set      = TSTrajectorySet_Stages;
  tj->ops->get      = TSTrajectoryGet_Stages;
  tj->ops->reset    = TSTrajectoryReset_Stages;
  tj->ops->destroy  = TSTrajectoryDestroy_Stages;
  tj->solution_only = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MbsTSTrajectoryRegisterStages - Registers the trajectory type MBS_TSTRAJECTORY_STAGES with PETSc (once). Not collective.
@*/
PetscErrorCode MbsTSTrajectoryRegisterStages(void)
{
  static PetscBool registered = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (registered) PetscFunctionReturn(0);
  PetscCall(TSTrajectoryRegister(MBS_TSTRAJECTORY_STAGES, TSTrajectoryCreate_Stages));
  registered = PETSC_TRUE;
  PetscFunctionReturn(0);
}
