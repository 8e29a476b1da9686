/*
  -solve_refuse NAME,lo,hi: a fault-injection hook that fails every forward solve of a model whose parameter NAME lies
  in [lo, hi], as a diverged integration, so that tests reach an identification's failure paths (a failed line-search
  step, a failure on one rank). It is no property of a model: the refusals live in this registry, keyed by the model,
  not in the model's struct, and a model without one costs a lookup in an empty list.
*/
#include "models/modelimpl.h"

typedef struct {
  MbsModel  model;
  PetscInt  index;    /* the parameter */
  PetscReal range[2]; /* [lo, hi] */
} MbsSolveRefusal;

static MbsSolveRefusal *MbsRefusals    = NULL;
static PetscInt         MbsNumRefusals = 0, MbsMaxRefusals = 0;

static PetscErrorCode MbsSolveRefusalsFree_Private(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(MbsRefusals));
  MbsNumRefusals = MbsMaxRefusals = 0;
  PetscFunctionReturn(0);
}

static const MbsSolveRefusal *MbsSolveRefusalFind_Private(MbsModel model)
{
  for (PetscInt i = 0; i < MbsNumRefusals; i++)
    if (MbsRefusals[i].model == model) return &MbsRefusals[i];
  return NULL;
}

/*
  MbsSolveRefuseForget - Drops the refusal of a model (when it is destroyed or read again). Not collective.
*/
PetscErrorCode MbsSolveRefuseForget(MbsModel model)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < MbsNumRefusals; i++)
    if (MbsRefusals[i].model == model) MbsRefusals[i--] = MbsRefusals[--MbsNumRefusals];
  PetscFunctionReturn(0);
}

/*
  MbsSolveRefuseSet - Solves of the model fail while its parameter index lies in [range[0], range[1]]. Not collective.
*/
PetscErrorCode MbsSolveRefuseSet(MbsModel model, PetscInt index, const PetscReal range[2])
{
  PetscFunctionBeginUser;
  PetscCall(MbsSolveRefuseForget(model));
  if (MbsNumRefusals == MbsMaxRefusals) {
    if (!MbsMaxRefusals) PetscCall(PetscRegisterFinalize(MbsSolveRefusalsFree_Private));
    MbsMaxRefusals = PetscMax(4, 2 * MbsMaxRefusals);
    PetscCall(PetscRealloc(MbsMaxRefusals * sizeof(*MbsRefusals), &MbsRefusals));
  }
  MbsRefusals[MbsNumRefusals++] = (MbsSolveRefusal){
    model, index, {range[0], range[1]}
  };
  PetscFunctionReturn(0);
}

/*
  MbsSolveRefused - Whether a solve of the model at its current parameters is to fail; if so, why, in reason (may be
  NULL). Not collective.
*/
PetscBool MbsSolveRefused(MbsModel model, char reason[], size_t size)
{
  const MbsSolveRefusal *refusal = MbsSolveRefusalFind_Private(model);
  PetscReal              value;

  if (!refusal) return PETSC_FALSE;
  value = model->p[refusal->index];
  if (value < refusal->range[0] || value > refusal->range[1]) return PETSC_FALSE;
  if (reason) (void)snprintf(reason, size, "%s = %g lies in -solve_refuse [%g, %g]", model->param_info[refusal->index].name, (double)value, (double)refusal->range[0], (double)refusal->range[1]);
  return PETSC_TRUE;
}
