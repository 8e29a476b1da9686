/*
  Model linearized: the linearisation of another model (its base) about the base's reference state, integrated in
  time (option -linearize of MbsModelSetFromOptions()). With M, C, K on the free motions x (MbsModelLinearize(), the
  matrices of mbsid frf and eigen), B the generalised force of the base's first excitation per unit of its size and the
  rows Cq, Cv, Ca of every output channel (MbsModelLinearizeIO()), the state U = (x, w) obeys

    F = [ x' - w ;  M w' + C w + K x - B f(t) ] = 0,      x(t0) = w(t0) = 0 (at rest in the reference state),

  f(t) the base's excitation (MbsModelExcitation(): its force law, or its nodal or sine input), and every channel reads

    y_c = Cq_c x + Cv_c w + Ca_c a,   a = M^-1 (B f - C w - K x),   so   y_c = Pq_c x + Pw_c w + d_c f(t),
    Pq_c = Cq_c - K^T r_c,   Pw_c = Cv_c - C^T r_c,   d_c = r_c^T B,   M^T r_c = Ca_c.

  Its steady state under f = Re(F e^{i w t}) is exactly the frequency response of mbsid frf (core/frf.c). The base is
  geometrically exact; this is the small-motion problem of a spec that is linear about its reference configuration
  (beam_bushings.md section 1). The base's parameters are this model's, not identifiable here (no dF/dp): a change
  of them linearises the base again before the next evaluation.
*/
#include "models/modelimpl.h"

typedef struct {
  MbsModel          base;
  MbsParameterInfo *info;                 /* the base's, identifiable none */
  PetscReal        *p;                    /* the parameters of the linearisation held */
  PetscReal        *M, *C, *K;            /* m x m */
  PetscReal        *B, *Cq, *Cv, *Ca;     /* m, and nchannel x m each */
  PetscReal        *Pq, *Pw, *d, *r, *LU; /* the channels' rows on U: nchannel x m, nchannel x m, nchannel; scratch */
  PetscInt         *pivots;
} Linearized;

static PetscErrorCode LinearizedReset_Private(Linearized *lin)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(lin->M, lin->C, lin->K));
  PetscCall(PetscFree4(lin->B, lin->Cq, lin->Cv, lin->Ca));
  PetscFunctionReturn(0);
}

/* M, C, K, B and the channels' rows at the model's parameters, when they are not those of the last linearisation */
static PetscErrorCode LinearizedSync_Private(MbsModel model)
{
  Linearized *lin  = (Linearized *)model->data;
  MbsModel    base = lin->base;
  PetscInt    m    = model->nq, nc, zero_pivot;
  PetscBool   same;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(model, &nc));
  if (lin->M) {
    PetscCall(PetscArraycmp(lin->p, model->p, model->np, &same));
    if (same) PetscFunctionReturn(0);
  }
  PetscCall(LinearizedReset_Private(lin));
  PetscCall(MbsModelSetParameters(base, model->p));
  PetscCall(MbsModelLinearize(base, &m, &lin->M, &lin->C, &lin->K));
  PetscCall(MbsModelLinearizeIO(base, NULL, NULL, &lin->B, &lin->Cq, &lin->Cv, &lin->Ca));
  PetscCall(PetscArraycpy(lin->LU, lin->M, m * m));
  zero_pivot = MbsDenseLUFactor(m, lin->LU, lin->pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model %s: the mass matrix of its linearisation is singular (zero pivot in column %" PetscInt_FMT ")", base->type, zero_pivot);
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal *r = lin->r, *pq = lin->Pq + c * m, *pw = lin->Pw + c * m;

    PetscCall(PetscArraycpy(r, lin->Ca + c * m, m));
    MbsDenseLUSolveTranspose(m, lin->LU, lin->pivots, r);
    lin->d[c] = 0;
    for (PetscInt j = 0; j < m; j++) {
      pq[j] = lin->Cq[c * m + j];
      pw[j] = lin->Cv[c * m + j];
      for (PetscInt i = 0; i < m; i++) {
        pq[j] -= MBS_IJ(lin->K, i, j, m) * r[i];
        pw[j] -= MBS_IJ(lin->C, i, j, m) * r[i];
      }
      lin->d[c] += r[j] * lin->B[j];
    }
  }
  PetscCall(PetscArraycpy(lin->p, model->p, model->np));
  PetscFunctionReturn(0);
}

static PetscErrorCode LinearizedResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal F[])
{
  Linearized      *lin = (Linearized *)model->data;
  PetscInt         m   = model->nq;
  const PetscReal *x = u, *w = u + m, *wdot = udot + m;
  PetscReal        f;

  PetscFunctionBeginUser;
  PetscCall(LinearizedSync_Private(model));
  PetscCall(MbsModelExcitation(model, t, &f));
  for (PetscInt i = 0; i < m; i++) {
    F[i]     = udot[i] - w[i];
    F[m + i] = -lin->B[i] * f;
  }
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < m; i++) F[m + i] += MBS_IJ(lin->M, i, j, m) * wdot[j] + MBS_IJ(lin->C, i, j, m) * w[j] + MBS_IJ(lin->K, i, j, m) * x[j];
  PetscFunctionReturn(0);
}

static PetscErrorCode LinearizedJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  Linearized *lin = (Linearized *)model->data;
  PetscInt    m = model->nq, n = model->n;

  PetscFunctionBeginUser;
  PetscCall(LinearizedSync_Private(model));
  for (PetscInt i = 0; i < m; i++) {
    MBS_IJ(J, i, i, n)     = shift;
    MBS_IJ(J, i, m + i, n) = -1;
  }
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < m; i++) {
      MBS_IJ(J, m + i, j, n)     = MBS_IJ(lin->K, i, j, m);
      MBS_IJ(J, m + i, m + j, n) = MBS_IJ(lin->C, i, j, m) + shift * MBS_IJ(lin->M, i, j, m);
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode LinearizedMass(MbsModel model, PetscReal t, const PetscReal u[], PetscReal E[])
{
  Linearized *lin = (Linearized *)model->data;
  PetscInt    m = model->nq, n = model->n;

  PetscFunctionBeginUser;
  PetscCall(LinearizedSync_Private(model));
  for (PetscInt j = 0; j < m; j++) {
    MBS_IJ(E, j, j, n) = 1;
    for (PetscInt i = 0; i < m; i++) MBS_IJ(E, m + i, m + j, n) = MBS_IJ(lin->M, i, j, m);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode LinearizedChannelOutput(MbsModel model, PetscInt c, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  Linearized      *lin = (Linearized *)model->data;
  PetscInt         m   = model->nq;
  const PetscReal *pq = lin->Pq + c * m, *pw = lin->Pw + c * m;
  PetscReal        f;

  PetscFunctionBeginUser;
  PetscCall(LinearizedSync_Private(model));
  PetscCall(MbsModelExcitation(model, t, &f));
  *y = lin->d[c] * f;
  for (PetscInt j = 0; j < m; j++) *y += pq[j] * u[j] + pw[j] * u[m + j];
  if (dydu) {
    PetscCall(PetscArraycpy(dydu, pq, m));
    PetscCall(PetscArraycpy(dydu + m, pw, m));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode LinearizedOutput(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  PetscCall(LinearizedChannelOutput(model, 0, t, u, y, dydu));
  PetscFunctionReturn(0);
}

/* The base's excitation: its force law, or the nodal or sine input given to it */
static PetscErrorCode LinearizedExcitation(MbsModel model, PetscReal t, PetscReal *force)
{
  Linearized *lin = (Linearized *)model->data;

  PetscFunctionBeginUser;
  PetscCall(MbsModelExcitation(lin->base, t, force));
  PetscFunctionReturn(0);
}

/* The linearisation of the linearisation is itself, on the same coordinates */
static PetscErrorCode LinearizedLinearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  Linearized *lin = (Linearized *)model->data;
  PetscInt    mm  = model->nq * model->nq;

  PetscFunctionBeginUser;
  PetscCall(LinearizedSync_Private(model));
  PetscCall(PetscArraycpy(M, lin->M, mm));
  PetscCall(PetscArraycpy(C, lin->C, mm));
  PetscCall(PetscArraycpy(K, lin->K, mm));
  PetscFunctionReturn(0);
}

static PetscErrorCode LinearizedLinearizeIO(MbsModel model, const char load[], const char **used, PetscReal B[], PetscReal Cq[], PetscReal Cv[], PetscReal Ca[])
{
  Linearized *lin = (Linearized *)model->data;

  PetscFunctionBeginUser;
  PetscCall(MbsModelSetParameters(lin->base, model->p));
  PetscCall(lin->base->ops.linearize_io(lin->base, load, used, B, Cq, Cv, Ca)); /* on the same coordinates */
  PetscFunctionReturn(0);
}

static PetscErrorCode LinearizedDestroy(MbsModel model)
{
  Linearized *lin = (Linearized *)model->data;

  PetscFunctionBeginUser;
  PetscCall(LinearizedReset_Private(lin));
  PetscCall(PetscFree5(lin->Pq, lin->Pw, lin->d, lin->r, lin->LU));
  PetscCall(PetscFree3(lin->info, lin->p, lin->pivots));
  PetscCall(MbsModelDestroy(&lin->base));
  PetscCall(PetscFree(model->data));
  PetscFunctionReturn(0);
}

/*
  MbsModelCreate_Linearized - Builds the linearisation of the model that model->data holds (MbsModelSetFromOptions()
  with -linearize moves the model set up so far there), which it takes over. Not collective.
*/
PetscErrorCode MbsModelCreate_Linearized(MbsModel model)
{
  MbsModel    base = (MbsModel)model->data;
  Linearized *lin;
  PetscInt    m, nc, np;

  PetscFunctionBeginUser;
  PetscCheck(base, model->comm, PETSC_ERR_ARG_WRONG, "Model linearized is the linearisation of another model: give that one (-model NAME or -model_file FILE) and -linearize");
  m  = base->nq;
  np = base->np;
  PetscCall(MbsModelGetNumChannels(base, &nc));
  PetscCheck(base->ops.linearize_io, base->comm, PETSC_ERR_SUP, "Model %s has no linearisation with a load and output rows (-linearize); describe it in a model file", base->type);
  PetscCall(PetscNew(&lin));
  model->data        = lin;
  lin->base          = base;
  model->ops.destroy = LinearizedDestroy; /* from here on, a failure frees the base with the model */
  PetscCall(PetscMalloc3(np, &lin->info, np, &lin->p, 3 * m, &lin->pivots));
  for (PetscInt i = 0; i < np; i++) {
    lin->info[i]              = base->param_info[i];
    lin->info[i].identifiable = PETSC_FALSE;
  }
  PetscCall(PetscMalloc5(nc * m, &lin->Pq, nc * m, &lin->Pw, nc, &lin->d, m, &lin->r, m * m, &lin->LU));
  PetscCall(MbsModelSetUp_Private(model, 2 * m, m, np, lin->info));
  PetscCall(PetscArraycpy(model->p, base->p, np));
  model->nchannel     = base->ops.channel_output ? nc : 0;
  model->channel_name = base->channel_name;
  model->channel_unit = base->channel_unit;
  MbsModelInheritOutputAndSpan_Private(model, base);
  model->jacobian_lag       = base->jacobian_lag;
  model->newton_predictor   = base->newton_predictor;
  model->newton_multipliers = base->newton_multipliers;
  model->constant_mass      = PETSC_TRUE;
  PetscCall(PetscStrncpy(model->model_file, base->model_file, sizeof(model->model_file)));
  model->model_file_checksum = base->model_file_checksum;
  PetscCall(PetscStrncpy(model->planar, base->planar, sizeof(model->planar)));
  model->ops.residual = LinearizedResidual;
  model->ops.jacobian = LinearizedJacobian;
  model->ops.mass     = LinearizedMass;
  model->ops.output   = LinearizedOutput;
  if (model->nchannel) model->ops.channel_output = LinearizedChannelOutput;
  model->ops.excitation   = LinearizedExcitation;
  model->ops.linearize    = LinearizedLinearize;
  model->ops.linearize_io = LinearizedLinearizeIO;
  PetscCall(LinearizedSync_Private(model));
  PetscFunctionReturn(0);
}
