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
  the base residual's force only, -F(t) B (B the unit row of the force coordinate, or a described force's P^T e,
  constant): dG/dF_k = -phi_k(t) B there and zero in every sensitivity row (the implicit form keeps f_F of the specs'
  explicit form, M^{-1} r, out of them). A DAE base's start moves with F(t0) (its multipliers, and through them the
  S_j(t0)): SensitivityInitialStateP gives dZ(t0)/dF_k, which the adjoint adds as lambda(t0)^T dZ(t0)/dF_k.
*/
#include "models/modelimpl.h"

typedef struct {
  MbsModel          base;
  PetscInt          nb, *b; /* the parameters b_j, indices in the base model */
  MbsParameterInfo *info;   /* base parameters (not identifiable here), then the nodes F0, F1, ... */
  char (*names)[16];
  PetscReal *J0, *J1, *Jp, *D; /* base dF/dU, dF/dU + dF/dU', dF/dp (n x np), D_j */
  PetscReal *dydu, *B;         /* dy/dU; the input's direction, dF/dF_in = -B */
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

/* dG/dF_k = -phi_k(t) B in the base rows (B: the unit row of the force coordinate, or a described force's direction
   P^T e); the base parameters' columns stay zero (not identifiable) */
static PetscErrorCode SensitivityJacobianP(MbsModel ext, PetscReal t, const PetscReal z[], const PetscReal zdot[], PetscReal Jp[])
{
  MbsSensitivity *sen  = (MbsSensitivity *)ext->data;
  MbsModel        base = sen->base;
  PetscInt        k;
  PetscReal       w[2];

  PetscFunctionBeginUser;
  if (ext->np == base->np || base->input.type != MBS_INPUT_NODAL) PetscFunctionReturn(0);
  MbsSensitivitySync_Private(ext, sen);
  PetscCall(MbsModelInputHat(base, t, &k, w));
  PetscCall(MbsModelInputDirection(base, t, z, sen->B));
  for (PetscInt i = 0; i < base->n; i++) {
    MBS_IJ(Jp, i, base->np + k, ext->n)     = -w[0] * sen->B[i];
    MBS_IJ(Jp, i, base->np + k + 1, ext->n) = -w[1] * sen->B[i];
  }
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
  PetscCall(PetscFree6(sen->J0, sen->J1, sen->Jp, sen->D, sen->dydu, sen->B));
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

/*
  dZ(t0)/dF_k of a DAE base (ops.initial_state_p of the extended model; the base parameters' columns stay zero): only
  F(t0) = sum_k phi_k(t0) F_k reaches the start, through the force rows, so with T the base's tangent of its start
  (ops.initial_state_tangent) and B its input direction (dF/dF_in = -B):

    dU(t0)/dF_in   = X = T(-B), and dU'(t0)/dF_in = X';
    dS_j(t0)/dF_in = T(r_j),   S_j(t0) = dU(t0)/db_j = T(dF/db_j) + what no force moves,
    r_j = D_j X + (D_j^1 - D_j) X'  in the rows of differential components (row i pairs with U_i),
          D_j X'                    in the rows of algebraic components,

  D_j^s = d/dU G_j + s d/dU' G_j, G_j = dF/dU S_j + dF/dU' S_j' + dF/db_j, the base's second derivatives along
  S_j(t0), S_j'(t0) at shift s (D_j = D_j^0): the start of S_j solves G_j = 0 in the rows of differential components
  and the time derivative of G_j in those of algebraic components (as the base's start solves the time derivative of
  its velocity constraints), and X moves only the multipliers and accelerations in them. So the coefficients of the
  S_j start move with F_in by D_j X and (D_j^1 - D_j) X' there, and by D_j X' in the time derivative of an algebraic
  row, (d/dU G_j)_a U' (a joint whose point is b_j: (s_q + H_r Sq_j) v', s = dPhi_r/db_j, H_r its Hessian).
  The S_j'(t0) follow from the sensitivity equations and are not part of the start the adjoint differentiates.
*/
static PetscErrorCode SensitivityInitialStateP_Private(MbsModel ext, PetscReal t0, const PetscReal z[], const PetscReal zdot[], PetscReal dZdP[], PetscReal X[], PetscReal r[], PetscReal Y[])
{
  MbsSensitivity *sen  = (MbsSensitivity *)ext->data;
  MbsModel        base = sen->base;
  PetscInt        n = base->n, nb = sen->nb, N = ext->n, k;
  PetscReal      *Xdot = X + n, *Ydot = Y + n * nb, w[2];

  PetscFunctionBeginUser;
  MbsSensitivitySync_Private(ext, sen);
  PetscCall(MbsModelInputHat(base, t0, &k, w));
  PetscCall(MbsModelInputDirection(base, t0, z, r));
  for (PetscInt i = 0; i < n; i++) r[i] = -r[i];
  PetscCall(base->ops.initial_state_tangent(base, t0, z, zdot, 1, r, X, Xdot));
  for (PetscInt j = 0; j < nb; j++) {
    PetscCall(PetscArrayzero(sen->J0, n * n));
    PetscCall(PetscArrayzero(sen->J1, n * n));
    PetscCall(base->ops.jacobian_sensitivity(base, t0, z, zdot, z + (1 + j) * n, zdot + (1 + j) * n, sen->b[j], 0.0, sen->J0));
    PetscCall(base->ops.jacobian_sensitivity(base, t0, z, zdot, z + (1 + j) * n, zdot + (1 + j) * n, sen->b[j], 1.0, sen->J1));
    for (PetscInt i = 0; i < n; i++) {
      r[i + j * n] = 0;
      for (PetscInt c = 0; c < n; c++) r[i + j * n] += base->differential[i] ? MBS_IJ(sen->J0, i, c, n) * X[c] + (MBS_IJ(sen->J1, i, c, n) - MBS_IJ(sen->J0, i, c, n)) * Xdot[c] : MBS_IJ(sen->J0, i, c, n) * Xdot[c];
    }
  }
  PetscCall(base->ops.initial_state_tangent(base, t0, z, zdot, nb, r, Y, Ydot));
  for (PetscInt h = 0; h < 2; h++) {
    PetscReal *column = dZdP + (base->np + k + h) * N;

    for (PetscInt i = 0; i < n; i++) column[i] = w[h] * X[i];
    for (PetscInt j = 0; j < nb; j++)
      for (PetscInt i = 0; i < n; i++) column[(1 + j) * n + i] = w[h] * Y[i + j * n];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SensitivityInitialStateP(MbsModel ext, PetscReal t0, const PetscReal z[], const PetscReal zdot[], PetscReal dZdP[])
{
  MbsSensitivity *sen = (MbsSensitivity *)ext->data;
  PetscInt        n = sen->base->n, nb = sen->nb;
  PetscReal      *X, *r, *Y;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(2 * n, &X, n * nb, &r, 2 * n * nb, &Y));
  MbsCallCleanup(SensitivityInitialStateP_Private(ext, t0, z, zdot, dZdP, X, r, Y), PetscFree3(X, r, Y));
  PetscFunctionReturn(0);
}

/* The design models' outputs are a linear function of U (dy/dU is the same at two different states) that does not
   depend on the parameters b directly (an accelerometer's dy/dp, which the y_bj = dy/dU S_j would leave out) */
static PetscErrorCode MbsSensitivityCheckOutput_Private(MbsModel base, PetscInt nb, const PetscInt b[], PetscReal u[], PetscReal dydu[], PetscReal other[])
{
  PetscInt  n = base->n;
  PetscReal y;

  PetscFunctionBeginUser;
  PetscCall(MbsModelOutput(base, base->t0, u, &y, dydu));
  for (PetscInt i = 0; i < n; i++) u[i] = 0.1 + 0.01 * i;
  PetscCall(MbsModelOutput(base, base->t0, u, &y, other));
  for (PetscInt i = 0; i < n; i++) PetscCheck(other[i] == dydu[i], base->comm, PETSC_ERR_SUP, "Model %s: its output %s is not linear in the state, which the sensitivity outputs dy/dU S_j assume", base->type, base->output_name);
  PetscCall(MbsModelOutputP(base, base->t0, u, other));
  for (PetscInt j = 0; j < nb; j++)
    PetscCheck(other[b[j]] == 0, base->comm, PETSC_ERR_SUP, "Model %s: its output %s depends on parameter %s directly (an accelerometer, a bushing's load, or a sensor whose point or axis is that parameter), which the sensitivity outputs dy/dU S_j leave out; give a position, velocity or force output that does not",
               base->type, base->output_name, base->param_info[b[j]].name);
  PetscFunctionReturn(0);
}

/* The input's direction B (dF/dF_in = -B) must not move with a design parameter b_j (a described force with input: true
   whose point or direction is b_j): dF/db_j would then hold -F_in dB/db_j, whose derivative by the nodal forces the
   sensitivity rows leave out (dG_j/dF_k = 0 there). B at b_j moved by a step against B at b_j: any change refuses it. */
static PetscErrorCode MbsSensitivityCheckInput_Private(MbsModel base, PetscInt nb, const PetscInt b[], const PetscReal u[], PetscReal B[], PetscReal moved[])
{
  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < nb; j++) {
    PetscReal      p    = base->p[b[j]];
    PetscBool      same = PETSC_TRUE;
    PetscErrorCode ierr;

    PetscCall(MbsModelInputDirection(base, base->t0, u, B));
    base->p[b[j]] = p + 1e-3 * PetscMax(1, PetscAbsReal(p));
    ierr          = MbsModelInputDirection(base, base->t0, u, moved);
    base->p[b[j]] = p;
    PetscCall(ierr);
    for (PetscInt i = 0; i < base->n; i++) same = (PetscBool)(same && B[i] == moved[i]);
    PetscCheck(same, base->comm, PETSC_ERR_SUP, "Model %s: its input force moves with parameter %s (a force with input: true whose point or direction is that parameter), so that dF/d%s depends on the designed input, which the sensitivity equations leave out; design the other parameters, or give that force's point and direction as numbers",
               base->type, base->param_info[b[j]].name, base->param_info[b[j]].name);
  }
  PetscFunctionReturn(0);
}

/* The output's checks, then with a nodal input the input's (u: a state; dydu, other: scratch) */
static PetscErrorCode MbsSensitivityCheck_Private(MbsModel base, PetscInt nb, const PetscInt b[], PetscBool nodal, PetscReal u[], PetscReal dydu[], PetscReal other[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsSensitivityCheckOutput_Private(base, nb, b, u, dydu, other));
  if (nodal) PetscCall(MbsSensitivityCheckInput_Private(base, nb, b, u, dydu, other));
  PetscFunctionReturn(0);
}

/* D_j at the start of a DAE base once, before any solve: an element without second derivatives (a described model's
   maxwell) is refused here, by name, and not after a forward solve */
static PetscErrorCode MbsSensitivityProbe_Private(MbsModel base, PetscInt j, PetscReal u[], PetscReal D[])
{
  PetscInt n = base->n;

  PetscFunctionBeginUser;
  PetscCall(MbsModelInitialState(base, base->t0, u, u + n));
  PetscCall(base->ops.jacobian_sensitivity(base, base->t0, u, u + n, u + 2 * n, u + 2 * n, j, 0.0, D));
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
  PetscReal       y;

  PetscFunctionBeginUser;
  PetscCheck(base->ops.jacobian_sensitivity, base->comm, PETSC_ERR_SUP, "Model %s provides no second derivatives (ops.jacobian_sensitivity): it has no sensitivity-extended system", base->type);
  PetscCheck(!(base->ops.initial_state && nnodes && !base->ops.initial_state_tangent), base->comm, PETSC_ERR_SUP, "Model %s: the consistent start of its DAE depends on the nodal input forces, and it gives no tangent of that start (ops.initial_state_tangent)",
             base->type);
  PetscCheck(nb >= 1, base->comm, PETSC_ERR_ARG_SIZ, "The sensitivity system needs at least one parameter");
  for (PetscInt j = 0; j < nb; j++) {
    PetscCheck(b[j] >= 0 && b[j] < base->np, base->comm, PETSC_ERR_ARG_OUTOFRANGE, "Parameter index %" PetscInt_FMT " of model %s is out of range", b[j], base->type);
    PetscCheck(base->param_info[b[j]].identifiable, base->comm, PETSC_ERR_ARG_WRONG, "Parameter %s of model %s is not identifiable (no dF/dp): it cannot be a design parameter", base->param_info[b[j]].name, base->type);
  }
  {
    PetscReal *u, *dydu, *other;

    PetscCall(PetscCalloc3(n, &u, n, &dydu, PetscMax(n, base->np), &other));
    MbsCallCleanup(MbsSensitivityCheck_Private(base, nb, b, (PetscBool)(nnodes > 0), u, dydu, other), PetscFree3(u, dydu, other));
  }
  if (base->ops.initial_state) {
    PetscReal *u, *D; /* U, U', S = S' = 0 */

    PetscCall(PetscCalloc2(3 * n, &u, n * n, &D));
    MbsCallCleanup(MbsSensitivityProbe_Private(base, b[0], u, D), PetscFree2(u, D));
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
  PetscCall(PetscMalloc6(n * n, &sen->J0, n * n, &sen->J1, n * base->np, &sen->Jp, n * n, &sen->D, n, &sen->dydu, n, &sen->B));
  PetscCall(PetscArrayzero(sen->B, n)); /* U = 0: dy/dU of the linear output */
  PetscCall(MbsModelOutput(base, base->t0, sen->B, &y, sen->dydu));
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
    if (nnodes) ext->ops.initial_state_p = SensitivityInitialStateP;
    for (PetscInt i = 0; i < ext->n; i++) ext->differential[i] = base->differential[i % n];
    ext->constant_mass = base->constant_mass; /* dG/dZ' holds dF/dU' and d(dF/db_j)/dU', both constant then */
  }
  MbsModelInheritOutputAndSpan_Private(ext, base);
  ext->design = base->design;
  *extended   = ext;
  PetscFunctionReturn(0);
}
