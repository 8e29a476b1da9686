/*
  TSTrajectory "stages": the forward trajectory kept in memory for its adjoint, mbsid's own type registered with PETSc
  (-ts_trajectory_type stages, the default of every gradient).

  For each step point n it keeps t_n, U_n and the stages Y_n,i of the step that ends there that U does not hold (TSGetStages):
  a Runge-Kutta method's s stages, a one-stage (midpoint) theta method's stage, and none of a two-stage theta method
  (endpoint, or beuler), whose stages are U_n-1 (X0, which TSStep_Theta copies from the solution before the step) and
  U_n (the solution vector itself). All in one contiguous block of (1 + s_kept) n entries per step point that doubles
  when full: a step costs 1 + s_kept copies of n numbers. PETSc 3.18's memory trajectory creates s + 1 new vectors at
  every step (VecDuplicateVecs, each a PETSc object with its layout and composed functions) and destroys them one by
  one after the sweep, which for a small model (the chain's 8 states) took as long as the adjoint steps themselves,
  and for powertrain_mounts' CN gradient (72 states) some 5 us of its 60 us adjoint step.

  TSAdjointSolve asks for the step points from the last to the first; Get(n) restores U_n, the stages of step n, the
  time t_n and the step t_n-1 - t_n (negative: the sweep runs backwards): what TSRK's and TSTHETA's adjoint steps read.
  A one-stage theta method's adjoint recovers U_n-1 from the stage and U_n: both are restored (the memory trajectory
  restores only the stage, simulate.c).
*/
#include "core/coreimpl.h"
#include <petsc/private/tsimpl.h> /* a TSTrajectory implementation fills the type's method table */

typedef struct {
  PetscInt     n, nstage;     /* entries of a state, stages of a step (TSGetStages) */
  PetscBool    previous;      /* a two-stage theta method: its stages are U_n-1 and U_n, none kept */
  PetscInt     nstep, nalloc; /* step points kept (0 .. nstep - 1), room for */
  PetscReal   *t;             /* times of the step points, nalloc */
  PetscScalar *data;          /* (1 + kept stages) n per step point: U_n, then the kept stages of the step ending at t_n */
} MbsTrajectoryStages;

/* The entries of one step point */
static size_t MbsTrajectoryStagesSize(const MbsTrajectoryStages *tr)
{
  return (size_t)(1 + (tr->previous ? 0 : tr->nstage)) * (size_t)tr->n;
}

static PetscErrorCode MbsTrajectoryStagesGrow_Private(MbsTrajectoryStages *tr, PetscInt nstep)
{
  PetscInt     nalloc = PetscMax(1024, tr->nalloc);
  size_t       size   = MbsTrajectoryStagesSize(tr);
  PetscReal   *t;
  PetscScalar *data;

  PetscFunctionBeginUser;
  while (nalloc < nstep) nalloc *= 2;
  if (nalloc == tr->nalloc) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(nalloc, &t, (size_t)nalloc * size, &data));
  PetscCall(PetscArraycpy(t, tr->t, tr->nstep));
  PetscCall(PetscArraycpy(data, tr->data, (size_t)tr->nstep * size));
  PetscCall(PetscFree2(tr->t, tr->data));
  tr->t      = t;
  tr->data   = data;
  tr->nalloc = nalloc;
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectorySetUp_Stages(TSTrajectory tj, TS ts)
{
  MbsTrajectoryStages *tr = (MbsTrajectoryStages *)tj->data;
  PetscBool            rk, theta;
  TSType               type;
  Vec                  U;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &rk));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &theta, TSTHETA, TSCN, TSBEULER, ""));
  PetscCall(TSGetType(ts, &type));
  PetscCheck(rk || theta, PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_trajectory_type stages keeps the steps of Runge-Kutta and theta methods only, not of -ts_type %s: drop it (the default keeps what the method needs) or give memory or basic", type);
  PetscCall(TSGetSolution(ts, &U));
  PetscCall(VecGetLocalSize(U, &tr->n));
  PetscCall(TSGetStages(ts, &tr->nstage, NULL));
  tr->previous = (PetscBool)(theta && tr->nstage == 2);
  PetscFunctionReturn(0);
}

/* The stages of the step TSGetStages() gives, checked against those the set-up counted (the slots' size) */
static PetscErrorCode MbsTrajectoryStagesOfStep_Private(MbsTrajectoryStages *tr, TS ts, Vec **Y)
{
  PetscInt nstage;

  PetscFunctionBeginUser;
  PetscCall(TSGetStages(ts, &nstage, Y));
  PetscCheck(nstage == tr->nstage, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The method's steps have %" PetscInt_FMT " stages, the trajectory's set-up counted %" PetscInt_FMT, nstage, tr->nstage);
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectorySet_Stages(TSTrajectory tj, TS ts, PetscInt stepnum, PetscReal time, Vec X)
{
  MbsTrajectoryStages *tr = (MbsTrajectoryStages *)tj->data;
  PetscScalar         *slot;
  const PetscScalar   *x;
  Vec                 *Y;

  PetscFunctionBeginUser;
  PetscCall(MbsTrajectoryStagesGrow_Private(tr, stepnum + 1));
  slot = tr->data + (size_t)stepnum * MbsTrajectoryStagesSize(tr);
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(PetscArraycpy(slot, x, tr->n));
  PetscCall(VecRestoreArrayRead(X, &x));
  if (stepnum > 0 && !tr->previous) { /* step point 0 ends no step */
    PetscCall(MbsTrajectoryStagesOfStep_Private(tr, ts, &Y));
    for (PetscInt i = 0; i < tr->nstage; i++) {
      PetscCall(VecGetArrayRead(Y[i], &x));
      PetscCall(PetscArraycpy(slot + (size_t)(1 + i) * tr->n, x, tr->n));
      PetscCall(VecRestoreArrayRead(Y[i], &x));
    }
  }
  tr->t[stepnum] = time;
  tr->nstep      = stepnum + 1; /* a step set again (a restarted solve) drops those after it */
  PetscFunctionReturn(0);
}

/* Stage i of the step ending at step point n into the vector Y: kept in n's slot, or U_n-1 (a two-stage theta method's X0) */
static PetscErrorCode MbsTrajectoryStagesRestore_Private(MbsTrajectoryStages *tr, PetscInt stepnum, PetscInt i, Vec Y)
{
  size_t       size = MbsTrajectoryStagesSize(tr);
  PetscScalar *y;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(Y, &y));
  PetscCall(PetscArraycpy(y, tr->previous ? tr->data + (size_t)(stepnum - 1) * size : tr->data + (size_t)stepnum * size + (size_t)(1 + i) * tr->n, tr->n));
  PetscCall(VecRestoreArrayWrite(Y, &y));
  PetscFunctionReturn(0);
}

static PetscErrorCode TSTrajectoryGet_Stages(TSTrajectory tj, TS ts, PetscInt stepnum, PetscReal *time)
{
  MbsTrajectoryStages *tr = (MbsTrajectoryStages *)tj->data;
  PetscScalar         *x;
  Vec                  U, *Y;

  PetscFunctionBeginUser;
  PetscCheck(stepnum < tr->nstep, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Step %" PetscInt_FMT " was not kept: the trajectory has %" PetscInt_FMT " step points", stepnum, tr->nstep);
  PetscCall(TSGetSolution(ts, &U));
  PetscCall(VecGetArrayWrite(U, &x));
  PetscCall(PetscArraycpy(x, tr->data + (size_t)stepnum * MbsTrajectoryStagesSize(tr), tr->n));
  PetscCall(VecRestoreArrayWrite(U, &x));
  if (stepnum > 0) {
    PetscCall(MbsTrajectoryStagesOfStep_Private(tr, ts, &Y));
    for (PetscInt i = 0; i < tr->nstage; i++)
      if (Y[i] != U) PetscCall(MbsTrajectoryStagesRestore_Private(tr, stepnum, i, Y[i])); /* a two-stage theta method's U_n is the solution */
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
