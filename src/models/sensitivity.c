/*
  The sensitivity-extended system of a model (oscillator2.md and cart_pendulum.md, section 3), itself a model:

    Z = [U, S_1, ..., S_nb],   S_j = dU/db_j,
    G = [ F(t, U, U', p) ;  dF/dU S_j + dF/dU' S_j' + dF/db_j ]  = 0,   S_j(t0) = 0.

  Its output is the base model's y; the output sensitivities are y_bj = dy/dU S_j (the outputs of the design models
  are linear in U, which MbsModelCreateSensitivity checks). Its Jacobian needs the second derivatives of F, which the
  base model provides through ops.jacobian_sensitivity:

    dG/dZ + shift dG/dZ' = [ J      0  ...  0 ]      J = dF/dU + shift dF/dU',
                           [ D_1    J         ]      D_j = d/dU (dF/dU S_j + dF/dU' S_j' + dF/db_j) + shift d/dU' (...)
                           [ ...        ...   ]
                           [ D_nb   0  ...  J ]

  A DAE base (its own consistent initial state) starts the sensitivities from S_j(t0) = dU(t0)/db_j and the S_j'(t0)
  that satisfy the sensitivity equations at t0 (SensitivityInitialState).

  Its parameters are the base model's (not differentiated: they are set, e.g. to scan E_RMS) followed, when the base
  model is driven by a nodal input (input.c), by the nodal forces F_k. The residual depends on the input through
  the base residual's force only, -F(t) in the row of the force coordinate: dG/dF_k = -phi_k(t) there and zero in
  every sensitivity row (the implicit form keeps f_F of the specs' explicit form, M^{-1} r, out of them).
*/
#include "models/modelimpl.h"

typedef struct {
  MbsModel          base;
  PetscInt          nb, *b; /* the parameters b_j, indices in the base model */
  MbsParameterInfo *info;   /* base parameters (not identifiable here), then the nodes F0, F1, ... */
  char (*names)[16];
  PetscReal *J0, *J1, *Jp, *D; /* base dF/dU, dF/dU + dF/dU', dF/dp (n x np), D_j */
  PetscReal *dydu;
} MbsSensitivity;

/* The extended model's parameters go to the base model and its nodal input before every evaluation */
static void MbsSensitivitySync_Private(MbsModel ext, MbsSensitivity *sen)
{
  MbsModel base = sen->base;

  for (PetscInt i = 0; i < base->np; i++) base->p[i] = ext->p[i];
  if (base->input.type == MBS_INPUT_NODAL)
    for (PetscInt k = 0; k < ext->np - base->np; k++) base->input.F[k] = ext->p[base->np + k];
}

static PetscErrorCode SensitivityResidual(MbsModel ext, PetscReal t, const PetscReal z[], const PetscReal zdot[], PetscReal g[])
{
  MbsSensitivity *sen  = (MbsSensitivity *)ext->data;
  MbsModel        base = sen->base;
  PetscInt        n    = base->n;

  PetscFunctionBeginUser;
  MbsSensitivitySync_Private(ext, sen);
  PetscCall(MbsModelResidual(base, t, z, zdot, g));
  PetscCall(MbsModelJacobian(base, t, z, zdot, 0.0, sen->J0));
  PetscCall(MbsModelJacobian(base, t, z, zdot, 1.0, sen->J1));
  PetscCall(MbsModelJacobianP(base, t, z, zdot, sen->Jp));
  for (PetscInt j = 0; j < sen->nb; j++) {
    const PetscReal *s = z + (1 + j) * n, *sdot = zdot + (1 + j) * n;
    PetscReal       *gj = g + (1 + j) * n;

    for (PetscInt i = 0; i < n; i++) {
      gj[i] = MBS_IJ(sen->Jp, i, sen->b[j], n);
      for (PetscInt k = 0; k < n; k++) gj[i] += MBS_IJ(sen->J0, i, k, n) * s[k] + (MBS_IJ(sen->J1, i, k, n) - MBS_IJ(sen->J0, i, k, n)) * sdot[k];
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SensitivityJacobian(MbsModel ext, PetscReal t, const PetscReal z[], const PetscReal zdot[], PetscReal shift, PetscReal J[])
{
  MbsSensitivity *sen  = (MbsSensitivity *)ext->data;
  MbsModel        base = sen->base;
  PetscInt        n = base->n, N = ext->n;

  PetscFunctionBeginUser;
  MbsSensitivitySync_Private(ext, sen);
  PetscCall(MbsModelJacobian(base, t, z, zdot, shift, sen->J1));
  for (PetscInt j = 0; j <= sen->nb; j++)
    for (PetscInt c = 0; c < n; c++)
      for (PetscInt r = 0; r < n; r++) MBS_IJ(J, j * n + r, j * n + c, N) = MBS_IJ(sen->J1, r, c, n);
  for (PetscInt j = 0; j < sen->nb; j++) {
    PetscCall(PetscArrayzero(sen->D, n * n));
    PetscCall(base->ops.jacobian_sensitivity(base, t, z, zdot, z + (1 + j) * n, zdot + (1 + j) * n, sen->b[j], shift, sen->D));
    for (PetscInt c = 0; c < n; c++)
      for (PetscInt r = 0; r < n; r++) MBS_IJ(J, (1 + j) * n + r, c, N) = MBS_IJ(sen->D, r, c, n);
  }
  PetscFunctionReturn(0);
}

/* dG/dF_k = -phi_k(t) in the row of the force coordinate; the base parameters' columns stay zero (not identifiable) */
static PetscErrorCode SensitivityJacobianP(MbsModel ext, PetscReal t, const PetscReal z[], const PetscReal zdot[], PetscReal Jp[])
{
  MbsSensitivity *sen  = (MbsSensitivity *)ext->data;
  MbsModel        base = sen->base;
  PetscInt        row  = base->nq + base->force_coordinate, k;
  PetscReal       w[2];

  PetscFunctionBeginUser;
  if (ext->np == base->np || base->input.type != MBS_INPUT_NODAL) PetscFunctionReturn(0);
  PetscCall(MbsModelInputHat(base, t, &k, w));
  MBS_IJ(Jp, row, base->np + k, ext->n)     = -w[0];
  MBS_IJ(Jp, row, base->np + k + 1, ext->n) = -w[1];
  PetscFunctionReturn(0);
}

static PetscErrorCode SensitivityOutput(MbsModel ext, PetscReal t, const PetscReal z[], PetscReal *y, PetscReal dydz[])
{
  MbsSensitivity *sen = (MbsSensitivity *)ext->data;

  PetscFunctionBeginUser;
  PetscCall(MbsModelOutput(sen->base, t, z, y, dydz));
  PetscFunctionReturn(0);
}

static PetscErrorCode SensitivityExcitation(MbsModel ext, PetscReal t, PetscReal *force)
{
  MbsSensitivity *sen = (MbsSensitivity *)ext->data;

  PetscFunctionBeginUser;
  MbsSensitivitySync_Private(ext, sen);
  PetscCall(MbsModelExcitation(sen->base, t, force));
  PetscFunctionReturn(0);
}

static PetscErrorCode SensitivityDestroy(MbsModel ext)
{
  MbsSensitivity *sen = (MbsSensitivity *)ext->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree5(sen->J0, sen->J1, sen->Jp, sen->D, sen->dydu));
  PetscCall(PetscFree3(sen->b, sen->info, sen->names));
  PetscCall(PetscFree(ext->data));
  PetscFunctionReturn(0);
}

/*
  The start of the sensitivities of a DAE base (one with ops.initial_state): S_j(t0) = dU(t0)/db_j (ops.initial_state_p;
  NULL: 0) and S_j'(t0) from the sensitivity equations at t0, E S_j' = -(dF/dU S_j + dF/db_j), E = dF/dU': solved on the
  differential components d, E[R, d] S_j'[d] = -(...)[R] with R the rows E couples to them (the algebraic rows hold by
  S_j(t0) itself, as the base's consistent start holds them), S_j' = 0 on the algebraic components. A singular E[R, d]
  (a flexible body's mass) is refused.
*/
static PetscErrorCode SensitivityInitialState_Private(MbsModel ext, PetscReal t0, PetscReal z[], PetscReal zdot[], PetscReal dUdp[], PetscReal A[], PetscInt index[])
{
  MbsSensitivity *sen  = (MbsSensitivity *)ext->data;
  MbsModel        base = sen->base;
  PetscInt        n = base->n, nd = 0, nr = 0, *col = index, *row = index + n, *pivots = index + 2 * n;
  PetscReal      *E = sen->J1;

  PetscFunctionBeginUser;
  MbsSensitivitySync_Private(ext, sen);
  PetscCall(MbsModelInitialState(base, t0, z, zdot));
  if (base->ops.initial_state_p) PetscCall(base->ops.initial_state_p(base, t0, z, zdot, dUdp));
  PetscCall(MbsModelJacobian(base, t0, z, zdot, 0.0, sen->J0));
  PetscCall(MbsModelJacobian(base, t0, z, zdot, 1.0, E));
  PetscCall(MbsModelJacobianP(base, t0, z, zdot, sen->Jp));
  for (PetscInt i = 0; i < n * n; i++) E[i] -= sen->J0[i];
  for (PetscInt i = 0; i < n; i++)
    if (base->differential[i]) col[nd++] = i;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = 0; k < nd; k++)
      if (MBS_IJ(E, r, col[k], n) != 0) {
        row[nr++] = r;
        break;
      }
  PetscCheck(nr == nd, base->comm, PETSC_ERR_SUP, "Model %s: dF/dU' couples %" PetscInt_FMT " rows to its %" PetscInt_FMT " differential components, so its sensitivities have no consistent rates S'(t0) (a flexible body's mass is singular)", base->type, nr, nd);
  for (PetscInt j = 0; j < sen->nb; j++) {
    PetscReal *s = z + (1 + j) * n, *sdot = zdot + (1 + j) * n, *rhs = dUdp + base->np * n; /* scratch past dU(t0)/dp */

    for (PetscInt i = 0; i < n; i++) {
      s[i]    = dUdp[i + sen->b[j] * n];
      sdot[i] = 0;
    }
    for (PetscInt k = 0; k < nd; k++) {
      rhs[k] = -MBS_IJ(sen->Jp, row[k], sen->b[j], n);
      for (PetscInt i = 0; i < n; i++) rhs[k] -= MBS_IJ(sen->J0, row[k], i, n) * s[i];
      for (PetscInt l = 0; l < nd; l++) A[k + l * nd] = MBS_IJ(E, row[k], col[l], n);
    }
    PetscCheck(MbsDenseLUFactor(nd, A, pivots) < 0, base->comm, PETSC_ERR_SUP, "Model %s: dF/dU' is singular on its differential components (a flexible body's mass), so its sensitivities have no consistent rates S'(t0)", base->type);
    MbsDenseLUSolve(nd, A, pivots, 1, rhs);
    for (PetscInt k = 0; k < nd; k++) sdot[col[k]] = rhs[k];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SensitivityInitialState(MbsModel ext, PetscReal t0, PetscReal z[], PetscReal zdot[])
{
  MbsModel   base = ((MbsSensitivity *)ext->data)->base;
  PetscInt   n    = base->n, *index;
  PetscReal *dUdp, *A;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(n * (base->np + 1), &dUdp, n * n, &A, 5 * n, &index)); /* columns, rows, 3 n pivots */
  MbsCallCleanup(SensitivityInitialState_Private(ext, t0, z, zdot, dUdp, A, index), PetscFree3(dUdp, A, index));
  PetscFunctionReturn(0);
}

/* The design models' outputs are a linear function of U: dy/dU is the same at two different states */
static PetscErrorCode MbsSensitivityCheckOutput_Private(MbsModel base, PetscReal dydu[])
{
  PetscInt   n = base->n;
  PetscReal *u, *other, y;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(n, &u, n, &other));
  PetscCall(MbsModelOutput(base, base->t0, u, &y, dydu));
  for (PetscInt i = 0; i < n; i++) u[i] = 0.1 + 0.01 * i;
  PetscCall(MbsModelOutput(base, base->t0, u, &y, other));
  for (PetscInt i = 0; i < n; i++) PetscCheck(other[i] == dydu[i], base->comm, PETSC_ERR_SUP, "Model %s: its output %s is not linear in the state, which the sensitivity outputs dy/dU S_j assume", base->type, base->output_name);
  PetscCall(PetscFree2(u, other));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelCreateSensitivity - The sensitivity-extended system of the base model for the parameters b[0..nb-1]. The
  base model must outlive it; its nodal input (if any) becomes the extended model's last parameters. Not collective.
@*/
PetscErrorCode MbsModelCreateSensitivity(MbsModel base, PetscInt nb, const PetscInt b[], MbsModel *extended)
{
  MbsModel        ext;
  MbsSensitivity *sen;
  PetscInt        n = base->n, nnodes = base->input.type == MBS_INPUT_NODAL ? base->input.n : 0;

  PetscFunctionBeginUser;
  PetscCheck(base->ops.jacobian_sensitivity, base->comm, PETSC_ERR_SUP, "Model %s provides no second derivatives (ops.jacobian_sensitivity): it has no sensitivity-extended system", base->type);
  PetscCheck(!(base->ops.initial_state_p && nnodes), base->comm, PETSC_ERR_SUP, "Model %s: its initial state depends on its parameters (a DAE's multipliers), and the sensitivity system does not carry its derivatives in the nodal input forces", base->type);
  PetscCheck(nb >= 1, base->comm, PETSC_ERR_ARG_SIZ, "The sensitivity system needs at least one parameter");
  for (PetscInt j = 0; j < nb; j++) {
    PetscCheck(b[j] >= 0 && b[j] < base->np, base->comm, PETSC_ERR_ARG_OUTOFRANGE, "Parameter index %" PetscInt_FMT " of model %s is out of range", b[j], base->type);
    PetscCheck(base->param_info[b[j]].identifiable, base->comm, PETSC_ERR_ARG_WRONG, "Parameter %s of model %s is not identifiable (no dF/dp): it cannot be a design parameter", base->param_info[b[j]].name, base->type);
  }
  PetscCall(MbsModelCreate(base->comm, &ext));
  PetscCall(PetscNew(&sen));
  sen->base = base;
  sen->nb   = nb;
  PetscCall(PetscMalloc3(nb, &sen->b, base->np + nnodes, &sen->info, nnodes, &sen->names));
  PetscCall(PetscArraycpy(sen->b, b, nb));
  for (PetscInt i = 0; i < base->np; i++) {
    sen->info[i]              = base->param_info[i];
    sen->info[i].identifiable = PETSC_FALSE;
  }
  for (PetscInt k = 0; k < nnodes; k++) {
    PetscCall(PetscSNPrintf(sen->names[k], sizeof(sen->names[k]), "F%" PetscInt_FMT, k));
    sen->info[base->np + k] = (MbsParameterInfo){sen->names[k], "N", "nodal input force", base->input.F[k], PETSC_MIN_REAL, PETSC_MAX_REAL, PETSC_TRUE};
  }
  PetscCall(PetscMalloc5(n * n, &sen->J0, n * n, &sen->J1, n * base->np, &sen->Jp, n * n, &sen->D, n, &sen->dydu));
  PetscCall(MbsSensitivityCheckOutput_Private(base, sen->dydu));
  PetscCall(MbsModelSetUp_Private(ext, n * (1 + nb), base->nq, base->np + nnodes, sen->info));
  PetscCall(PetscSNPrintf(ext->type, sizeof(ext->type), "%s_sensitivity", base->type));
  for (PetscInt i = 0; i < base->np; i++) ext->p[i] = base->p[i];
  PetscCall(PetscArraycpy(ext->q0, base->q0, base->nq));
  PetscCall(PetscArraycpy(ext->v0, base->v0, base->nq));
  ext->data           = sen;
  ext->ops.residual   = SensitivityResidual;
  ext->ops.jacobian   = SensitivityJacobian;
  ext->ops.jacobian_p = SensitivityJacobianP;
  ext->ops.output     = SensitivityOutput;
  ext->ops.excitation = SensitivityExcitation;
  ext->ops.destroy    = SensitivityDestroy;
  if (base->ops.initial_state) { /* a DAE: its algebraic components in every block, its consistent start */
    ext->ops.initial_state = SensitivityInitialState;
    for (PetscInt i = 0; i < ext->n; i++) ext->differential[i] = base->differential[i % n];
    ext->constant_mass = base->constant_mass; /* dG/dZ' holds dF/dU' and d(dF/db_j)/dU', both constant then */
  }
  MbsModelInheritOutputAndSpan_Private(ext, base);
  ext->design = base->design;
  *extended   = ext;
  PetscFunctionReturn(0);
}
