/*
  Gains of a black-box controller from perturbations of its input and time (../shared/models/pid_sdof.md, section 4,
  the source's Eqs. 10-50). At the present time t0 the controller has input y0 and output u0; perturbation j advances
  it by dt_j = j dt_1 with the input ramped linearly by dy_j = j dy_1 (first-order hold), and the output change
  du_j = u_j - u0 is what a controller of the assumed kind would answer to the input increment:

    P                       du = K_p dy_j
    single integration      du = K_i (y0 + dy_j/2) dt_j                                   (21-22)
    double integration      du = K_ii (y0/2 + dy_j/6) dt_j^2                               (25-26)
    triple integration      du = K_iii (y0/6 + dy_j/24) dt_j^3                             (28-29)
    single derivation       a flat step (dy = 0) first, then du = K_d dy_j/dt_j            (35-36)
    double derivation       steps with offsets 0, dy_1j, -dy_1j: ydd = (dy_j2 - 2 dy_j1 + dy_j0)/dt_j^2,
                            du (after the third step - before the first) = K_dd ydd       (40-44)
    PID                     a flat step, then for j = 1, 2, 3 from the state after it
                            [dy_j  (y0 + dy_j/2) dt_j  dy_j/dt_j] [K_p K_i K_d]^T = du_j  (45-49)

  Every sequence starts from a saved state and ends by restoring it, so the running simulation continues bit for bit
  as if nothing had happened. With substeps n > 1 each perturbation step is split into n equal steps with the input
  still linear (Sect. 3.6); only the last output is used.
*/
#include "controllers/controllerimpl.h"
#include <petscblaslapack.h>

const char *const MbsPerturbMethods[] = {"pid", "p", "integral", "double_integral", "triple_integral", "derivative", "double_derivative", "MbsPerturbMethod", "MBS_PERTURB_", NULL};

/*
  One perturbation step of length h from (t_a, y_a) to y_b, as substeps steps of the linear input. Each substep is
  given the length h/substeps itself, never a difference of clock times: at t_a = 1 s, (t_a + 2h) - (t_a + h) is h
  with a relative error of 2e-13 (the spacing of doubles near 1 against h = 1e-3), which K_d dy/h passes on to the
  output and system (49) to K_i, whose column is a million times smaller than K_d's (an error of 9e-7 in T4 at
  t0 = 1 s instead of 1e-9 at t0 = 0).
*/
static PetscErrorCode MbsPerturbStep_Private(MbsController c, PetscInt substeps, PetscReal t_a, PetscReal y_a, PetscReal h, PetscReal y_b, PetscReal *u)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 1; i <= substeps; i++) PetscCall(MbsControllerStep(c, t_a + h * i / substeps, i == substeps ? y_b : y_a + (y_b - y_a) * i / substeps, h / substeps, u));
  PetscFunctionReturn(0);
}

/* K_p, K_i, K_d from the rows of (49), by LU with partial pivoting */
static PetscErrorCode MbsPerturbSolve_Private(MbsController c, MbsPerturbResult *result)
{
  PetscReal    a[9], x[3];
  PetscBLASInt n = 3, one = 1, pivots[3], info;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 3; i++) {
    x[i] = result->rhs[i];
    for (PetscInt j = 0; j < 3; j++) a[i + 3 * j] = result->matrix[3 * i + j];
  }
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&n, &one, a, &n, pivots, x, &n, &info));
  PetscCheck(info == 0, c->comm, PETSC_ERR_MAT_LU_ZRPVT, "Controller %s: the perturbation system (49) is singular (LAPACK info %d); the perturbations must differ in dt and dy", c->symbol, (int)info);
  PetscCall(PetscArraycpy(result->gain, x, 3));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsPerturbPID_Private(MbsController c, const MbsPerturbSettings *s, PetscReal t0, PetscReal y0, MbsPerturbResult *result)
{
  void     *flat;
  PetscReal u0 = 0;

  PetscFunctionBeginUser;
  PetscCall(MbsControllerSaveCreate(c, &flat));
  if (!s->separate) PetscCall(MbsPerturbStep_Private(c, s->substeps, t0, y0, s->dt, y0, &u0)); /* one flat step for all three */
  PetscCall(MbsControllerSave(c, flat));
  result->u0 = u0;
  for (PetscInt j = 1; j <= 3; j++) {
    PetscReal dt = j * s->dt, dy = j * s->dy, t_flat = t0 + (s->separate ? dt : s->dt), u;

    PetscCall(MbsControllerRestore(c, flat));
    if (s->separate) PetscCall(MbsPerturbStep_Private(c, s->substeps, t0, y0, dt, y0, &u0)); /* each j its own flat step of dt_j */
    PetscCall(MbsPerturbStep_Private(c, s->substeps, t_flat, y0, dt, y0 + dy, &u));
    result->matrix[3 * (j - 1) + 0] = dy;
    result->matrix[3 * (j - 1) + 1] = (y0 + dy / 2) * dt;
    result->matrix[3 * (j - 1) + 2] = dy / dt;
    result->rhs[j - 1]              = u - u0;
  }
  PetscCall(PetscFree(flat));
  PetscCall(MbsPerturbSolve_Private(c, result));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsPerturbSingle_Private(MbsController c, const MbsPerturbSettings *s, PetscReal t0, PetscReal y0, MbsPerturbResult *result)
{
  PetscReal dt = s->j * s->dt, dy = s->j * s->dy, u0, u = 0;

  PetscFunctionBeginUser;
  PetscCall(MbsControllerGetOutput(c, &u0));
  switch (s->method) {
  case MBS_PERTURB_P:
  case MBS_PERTURB_INTEGRAL:
  case MBS_PERTURB_DOUBLE_INTEGRAL:
  case MBS_PERTURB_TRIPLE_INTEGRAL:
    PetscCall(MbsPerturbStep_Private(c, s->substeps, t0, y0, dt, y0 + dy, &u));
    result->increment[0] = s->method == MBS_PERTURB_P ? dy : s->method == MBS_PERTURB_INTEGRAL ? (y0 + dy / 2) * dt : s->method == MBS_PERTURB_DOUBLE_INTEGRAL ? (y0 / 2 + dy / 6) * dt * dt : (y0 / 6 + dy / 24) * dt * dt * dt;
    break;
  case MBS_PERTURB_DERIVATIVE:
    PetscCall(MbsPerturbStep_Private(c, s->substeps, t0, y0, dt, y0, &u0));
    PetscCall(MbsPerturbStep_Private(c, s->substeps, t0 + dt, y0, dt, y0 + dy, &u));
    result->increment[0] = dy / dt;
    break;
  case MBS_PERTURB_DOUBLE_DERIVATIVE: {
    const PetscReal offset[3] = {0, dy, -dy};

    PetscCall(MbsPerturbStep_Private(c, s->substeps, t0, y0, dt, y0 + offset[0], &u));
    PetscCall(MbsPerturbStep_Private(c, s->substeps, t0 + dt, y0 + offset[0], dt, y0 + offset[1], &u));
    PetscCall(MbsPerturbStep_Private(c, s->substeps, t0 + 2 * dt, y0 + offset[1], dt, y0 + offset[2], &u));
    result->increment[0] = (offset[2] - 2 * offset[1] + offset[0]) / (dt * dt);
    result->increment[1] = offset[2];                    /* dy_j = dy_j2 (40) */
    result->increment[2] = (offset[2] - offset[1]) / dt; /* (41) */
  } break;
  case MBS_PERTURB_PID:
    SETERRQ(c->comm, PETSC_ERR_PLIB, "PID is not a single-gain estimator");
  }
  result->u0      = u0;
  result->du      = u - u0;
  result->gain[0] = result->du / result->increment[0];
  PetscFunctionReturn(0);
}

/*@C
  MbsControllerPerturb - Estimates the controller's gains at time t0 with input y0 (the plant's position), right after
  the regular step that reached t0 (or init), by the method of the settings; restores every internal variable
  afterwards. Not collective.
@*/
PetscErrorCode MbsControllerPerturb(MbsController c, const MbsPerturbSettings *settings, PetscReal t0, PetscReal y0, MbsPerturbResult *result)
{
  void *base;

  PetscFunctionBeginUser;
  PetscCheck(c->started, c->comm, PETSC_ERR_ORDER, "Controller %s: perturbation before init", c->symbol);
  PetscCheck(settings->dt > 0 && settings->substeps >= 1 && settings->j >= 1, c->comm, PETSC_ERR_ARG_OUTOFRANGE, "Perturbation needs dt_1 > 0 (got %g s), substeps >= 1 (got %" PetscInt_FMT ") and j >= 1 (got %" PetscInt_FMT ")", (double)settings->dt,
             settings->substeps, settings->j);
  PetscCall(PetscMemzero(result, sizeof(*result)));
  result->t0 = t0;
  result->y0 = y0;
  PetscCall(MbsControllerSaveCreate(c, &base));
  PetscCall(MbsControllerSave(c, base));
  if (settings->method == MBS_PERTURB_PID) PetscCall(MbsPerturbPID_Private(c, settings, t0, y0, result));
  else PetscCall(MbsPerturbSingle_Private(c, settings, t0, y0, result));
  PetscCall(MbsControllerRestore(c, base));
  PetscCall(PetscFree(base));
  PetscFunctionReturn(0);
}
