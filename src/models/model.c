/*
  The model registry and what every model shares: parameters given as -p_<name> and checked against
  their physical bounds, initial state, and dense evaluation of the model's residual, Jacobians and
  output.

  Every model is linear in U': F(t, U, U') = E(U) U' + r(t, U). For the ODE models the consistent
  initial rate is therefore U'(t0) = -E^{-1} r(t0, U0) = -E^{-1} F(t0, U0, 0); a DAE model supplies its
  own initial state.
*/
#include "models/modelimpl.h"
#include "controllers/controllerimpl.h"

static PetscFunctionList MbsModelList              = NULL;
static PetscBool         MbsModelRegisterAllCalled = PETSC_FALSE;

/*@C
  MbsModelRegister - Adds a model to the registry, so that -model <name> selects it. Not collective.
@*/
PetscErrorCode MbsModelRegister(const char name[], PetscErrorCode (*create)(MbsModel))
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListAdd(&MbsModelList, name, create));
  PetscFunctionReturn(0);
}

/* Frees the registry at PetscFinalize() */
static PetscErrorCode MbsModelFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&MbsModelList));
  MbsModelRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelRegisterAll - Registers the models shipped with mbsid. Not collective.
@*/
PetscErrorCode MbsModelRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (MbsModelRegisterAllCalled) PetscFunctionReturn(0);
  MbsModelRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(MbsModelFinalizePackage));
  PetscCall(MbsModelRegister("oscillator2", MbsModelCreate_Oscillator2));
  PetscCall(MbsModelRegister("cart_pendulum", MbsModelCreate_CartPendulum));
  PetscCall(MbsModelRegister("cart_pendulum_chain", MbsModelCreate_CartPendulumChain));
  PetscCall(MbsModelRegister("bushing2", MbsModelCreate_Bushing2));
  PetscCall(MbsModelRegister("spring_chain", MbsModelCreate_SpringChain));
  PetscCall(MbsModelRegister("engine4", MbsModelCreate_Engine4));
  PetscCall(MbsModelRegister("pid_sdof", MbsModelCreate_PidSdof));
  PetscCall(MbsModelRegister("described", MbsModelCreate_Described));
  PetscCall(MbsModelRegister("linearized", MbsModelCreate_Linearized));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelCreate - Creates an empty model; choose it with MbsModelSetType() or MbsModelSetFromOptions(). Not collective.
@*/
PetscErrorCode MbsModelCreate(MPI_Comm comm, MbsModel *model)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelRegisterAll());
  PetscCall(PetscNew(model));
  (*model)->comm = comm;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsModelReset_Private(MbsModel model)
{
  PetscFunctionBeginUser;
  if (model->ops.destroy) PetscCall(model->ops.destroy(model));
  PetscCall(PetscFree(model->p));
  PetscCall(PetscFree(model->differential));
  PetscCall(PetscFree2(model->q0, model->v0));
  PetscCall(PetscFree(model->jacobian_work));
  PetscCall(PetscFree2(model->form_work, model->form_pivots));
  PetscCall(PetscFree(model->channel_work));
  PetscCall(PetscFree(model->frozen_t));
  PetscCall(PetscFree(model->sample_t));
  model->nsample = 0;
  PetscCall(MbsModelClearInput(model));
  PetscCall(PetscMemzero(&model->design, sizeof(model->design)));
  model->speed        = NULL;
  model->nfrozen      = 0;
  model->freeze_steps = PETSC_FALSE;
  PetscCall(PetscMemzero(&model->ops, sizeof(model->ops)));
  model->data            = NULL;
  model->type[0]         = 0;
  model->constant_mass   = PETSC_FALSE;
  model->ode_form_option = NULL;
  model->nodal_input     = PETSC_FALSE;
  model->ncontrol        = 0; /* the names of control_input belonged to the model destroyed */
  PetscCall(PetscArrayzero(model->control_force, MBS_MAX_CONTROL));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetType - Builds the named model with its default parameters. Not collective.
@*/
PetscErrorCode MbsModelSetType(MbsModel model, const char type[])
{
  PetscErrorCode (*create)(MbsModel) = NULL;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(model->type, type, &same));
  if (same) PetscFunctionReturn(0);
  PetscCall(PetscFunctionListFind(MbsModelList, type, &create));
  if (!create) {
    char known[1024];

    PetscCall(MbsFunctionListNames(MbsModelList, known, sizeof(known)));
    SETERRQ(model->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown model '%s' (-model); known models: %s", type, known);
  }
  PetscCall(MbsModelReset_Private(model));
  PetscCall(create(model));
  PetscCall(PetscStrncpy(model->type, type, sizeof(model->type)));
  PetscFunctionReturn(0);
}

/*
  Called by each model's create function: sizes, the parameter table, defaults.
*/
PetscErrorCode MbsModelSetUp_Private(MbsModel model, PetscInt n, PetscInt nq, PetscInt np, const MbsParameterInfo info[])
{
  PetscFunctionBeginUser;
  model->n          = n;
  model->nq         = nq;
  model->np         = np;
  model->param_info = info;
  PetscCall(PetscMalloc1(np, &model->p));
  for (PetscInt i = 0; i < np; i++) model->p[i] = info[i].value;
  PetscCall(PetscMalloc1(n, &model->differential));
  for (PetscInt i = 0; i < n; i++) model->differential[i] = PETSC_TRUE;
  PetscCall(PetscCalloc2(nq, &model->q0, nq, &model->v0));
  model->force_coordinate = -1;
  for (PetscInt k = 0; k < MBS_MAX_CONTROL; k++) model->control_channel[k] = -1;
  model->jacobian_lag = 1;
  PetscFunctionReturn(0);
}

/* A model built on another (sensitivity.c, linearized.c) takes over its output's name and unit, its time span and steps */
void MbsModelInheritOutputAndSpan_Private(MbsModel model, MbsModel base)
{
  model->output_name = base->output_name;
  model->output_unit = base->output_unit;
  model->t0          = base->t0;
  model->tf          = base->tf;
  model->dt          = base->dt;
  model->dt_max      = base->dt_max;
}

/* comm: the model's while the options are read on every rank, PETSC_COMM_SELF for the values of one rank's solve */
static PetscErrorCode MbsModelCheckParameter_Private(MbsModel model, MPI_Comm comm, PetscInt i, PetscReal value)
{
  const MbsParameterInfo *info = &model->param_info[i];

  PetscFunctionBeginUser;
  PetscCheck(!PetscIsInfOrNanReal(value), comm, PETSC_ERR_ARG_OUTOFRANGE, "Parameter %s of model %s is %g: not a finite number (-p_%s)", info->name, model->type, (double)value, info->name);
  PetscCheck(value >= info->lower && value <= info->upper, comm, PETSC_ERR_ARG_OUTOFRANGE, "Parameter %s of model %s is %g %s, outside its physical bounds [%g, %g] (-p_%s)", info->name, model->type, (double)value, info->unit, (double)info->lower,
             (double)info->upper, info->name);
  PetscFunctionReturn(0);
}

/* -solve_refuse NAME,lo,hi, into the registry of solve refusals (solve_refuse.c) */
static PetscErrorCode MbsModelParseRefuse_Private(MbsModel model, PetscInt n, char *refuse[])
{
  PetscInt  index;
  PetscReal range[2];

  PetscFunctionBeginUser;
  PetscCheck(n == 3, model->comm, PETSC_ERR_ARG_SIZ, "Option -solve_refuse needs NAME,lo,hi, got %" PetscInt_FMT " values", n);
  PetscCall(MbsModelGetParameterIndex(model, refuse[0], &index));
  for (PetscInt i = 0; i < 2; i++) PetscCall(PetscOptionsStringToReal(refuse[i + 1], &range[i]));
  PetscCall(MbsSolveRefuseSet(model, index, range));
  PetscFunctionReturn(0);
}

/* -linearize: the model set up so far becomes the base of model linearized (linearized.c), which takes its place */
static PetscErrorCode MbsModelLinearizeInPlace_Private(MbsModel model)
{
  PetscErrorCode (*create)(MbsModel) = NULL;
  MbsModel base;

  PetscBool sparse = PETSC_FALSE, set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-jacobian_sparse", &sparse, &set));
  PetscCheck(!set || !sparse, model->comm, PETSC_ERR_ARG_INCOMP, "-jacobian_sparse with -linearize: the linearised model's Jacobian is dense (2 x its free motions); drop -jacobian_sparse");
  PetscCall(PetscFunctionListFind(MbsModelList, "linearized", &create));
  PetscCall(PetscNew(&base));
  *base = *model; /* every array and the ops move to the base */
  PetscCall(PetscMemzero(model, sizeof(*model)));
  model->comm = base->comm;
  model->data = base;
  MbsCallUndo(create(model), (model->data == base ? MbsModelDestroy(&base) : 0));
  PetscCall(PetscStrncpy(model->type, "linearized", sizeof(model->type)));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetFromOptions - Reads -model, the parameters -p_<name> and the model's own options. Collective.
@*/
PetscErrorCode MbsModelSetFromOptions(MbsModel model)
{
  char      type[64] = "cart_pendulum_chain";
  PetscBool set, file_set, linearize = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (model->type[0]) PetscCall(PetscStrncpy(type, model->type, sizeof(type)));
  MbsOptionsBegin(model->comm, NULL, "Model selection", "MbsModel");
  PetscCall(PetscOptionsFList("-model", "Multibody model", "MbsModelSetType", MbsModelList, type, type, sizeof(type), &set));
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-model_file", "Multibody system described in a YAML model file (implies -model described; doc/model-files.md)", "MbsModelSetType", model->model_file, sizeof(model->model_file), &file_set));
  PetscCall(PetscOptionsBool("-linearize", "Integrate the model's linearisation about its reference state instead (M, C, K, the load and the output rows of mbsid frf)", "MbsModelSetFromOptions", linearize, &linearize, NULL));
  MbsOptionsEnd();
  if (file_set) {
    PetscBool described;

    PetscCall(PetscStrcmp(type, "described", &described));
    PetscCheck(!set || described, model->comm, PETSC_ERR_ARG_INCOMP, "-model %s and -model_file %s: a model file describes its own model; drop -model", type, model->model_file);
    PetscCall(PetscStrncpy(type, "described", sizeof(type)));
  }
  PetscCall(MbsModelSetType(model, type));

  MbsOptionsBegin(model->comm, NULL, "Model parameters (SI units)", "MbsModel");
  for (PetscInt i = 0; i < model->np; i++) {
    const MbsParameterInfo *info = &model->param_info[i];
    char                    option[80], text[256];

    PetscCall(PetscSNPrintf(option, sizeof(option), "-p_%s", info->name));
    PetscCall(PetscSNPrintf(text, sizeof(text), "%s [%s], bounds [%g, %g]%s", info->description, info->unit, (double)info->lower, (double)info->upper, info->identifiable ? ", identifiable" : ""));
    PetscCall(PetscOptionsReal(option, text, "MbsModelSetParameters", model->p[i], &model->p[i], NULL));
    PetscCall(MbsModelCheckParameter_Private(model, model->comm, i, model->p[i]));
  }
  {
    PetscReal span[2] = {model->t0, model->tf};
    char      text[128];

    PetscCall(PetscSNPrintf(text, sizeof(text), "Simulated interval t0,tf [s] (default: the model's, %g,%g)", (double)model->t0, (double)model->tf));
    PetscCall(MbsOptionsRealArrayExact(PetscOptionsObject, "-time_span", text, "MbsModelGetTimeSpan", 2, span, &set));
    PetscCheck(span[1] > span[0], model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-time_span %g,%g: tf must exceed t0", (double)span[0], (double)span[1]);
    model->t0 = span[0];
    model->tf = span[1];
  }
  {
    char    *refuse[3] = {NULL, NULL, NULL};
    PetscInt nrefuse   = 3;

    PetscCall(PetscOptionsStringArray("-solve_refuse", "Fail every forward solve whose parameter NAME lies in [lo, hi], as a diverged integration: NAME,lo,hi (to try an identification's failure paths)", "MbsSimulate", refuse, &nrefuse, &set));
    PetscCall(MbsSolveRefuseForget(model));
    if (set) MbsCallCleanup(MbsModelParseRefuse_Private(model, nrefuse, refuse), MbsStringsFree(nrefuse, refuse));
  }
  PetscCall(MbsModelInputSetFromOptions(model, PetscOptionsObject));
  model->sparse_jacobian = (PetscBool)(model->n >= 64);
  PetscCall(PetscOptionsBool("-jacobian_sparse", "Assemble the integrator's Jacobian sparse (AIJ, factored by KLU) instead of dense (default: for 64 states or more)", "MbsSimulate", model->sparse_jacobian, &model->sparse_jacobian, NULL));
  PetscCall(PetscOptionsBool("-jacobian_petsc_klu", "Factor the sparse Jacobian with PETSc's KLU interface (klu_factor with pivoting of every stored entry at every factorisation; the answers before 2026-11-28) instead of KLU with its pivots reused on the entries ever non-zero (src/core/klu_refactor.c)", "MbsSimulate",
                             model->petsc_klu, &model->petsc_klu, NULL));
  PetscCheck(!model->petsc_klu || model->sparse_jacobian, model->comm, PETSC_ERR_ARG_INCOMP, "-jacobian_petsc_klu chooses the LU of a sparse Jacobian, but model %s (%" PetscInt_FMT " states) assembles it dense: add -jacobian_sparse or drop -jacobian_petsc_klu",
             model->type, model->n);
  model->adjoint_klu_reuse = 3;
  PetscCall(PetscOptionsInt("-adjoint_klu_reuse", "The adjoint solve of an implicit theta method (cn, theta, beuler) with the sparse Jacobian's KLU keeps the factors across steps and refines each transposed solve on them to the backward error of rounding, with at most this many corrections; a solve that needs them all has the next step's Jacobian factored, one they do not refine is solved again with its own Jacobian's factors (0: factor every step's Jacobian, as the forward solve does)", "MbsGradient",
                            model->adjoint_klu_reuse, &model->adjoint_klu_reuse, NULL));
  PetscCheck(model->adjoint_klu_reuse >= 0, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-adjoint_klu_reuse %" PetscInt_FMT ": give 0 (factor at every step) or the most corrections of one solve", model->adjoint_klu_reuse);
  PetscCall(PetscOptionsInt("-jacobian_lag", "Newton of a forward solve of an implicit integrator refactors its Jacobian at least every this many iterations, counted across steps, and sooner when an iteration contracts by less than half (1: every iteration; adjoint solves always use fresh Jacobians; default: the model's)", "MbsSimulate",
                            model->jacobian_lag, &model->jacobian_lag, NULL));
  PetscCheck(model->jacobian_lag >= 1, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-jacobian_lag %" PetscInt_FMT ": give 1 (a fresh Jacobian at every Newton iteration) or more", model->jacobian_lag);
  PetscCall(PetscOptionsInt("-newton_predictor", "Newton of an implicit theta method (cn, theta, beuler) with a lagged Jacobian (-jacobian_lag > 1) starts each step from the polynomial of this degree through the last accepted states, extrapolated (0: from the last state, PETSc's start; at most 4; default: the model's)", "MbsSimulate",
                            model->newton_predictor, &model->newton_predictor, NULL));
  PetscCheck(model->newton_predictor >= 0 && model->newton_predictor <= 4, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-newton_predictor %" PetscInt_FMT ": give a degree from 0 (start from the last state) to 4", model->newton_predictor);
  PetscCall(PetscOptionsBool("-newton_multipliers", "Newton with a lagged Jacobian (-jacobian_lag > 1) treats the algebraic components of a DAE (the multipliers of a model file) as multipliers: their predictor (-newton_predictor) takes a term alternating from step to step (cn, theta 0.5), and its stopping test counts their errors times the step (default: the model's)", "MbsSimulate",
                             model->newton_multipliers, &model->newton_multipliers, NULL));
  if (!model->ops.initial_state) {
    PetscCall(MbsOptionsRealArrayExact(PetscOptionsObject, "-initial_q", "Initial coordinates, one per coordinate of the model [m or rad] (default: all 0)", "MbsModelInitialState", model->nq, model->q0, NULL));
    PetscCall(MbsOptionsRealArrayExact(PetscOptionsObject, "-initial_v", "Initial rates, one per coordinate of the model [m/s or rad/s] (default: all 0)", "MbsModelInitialState", model->nq, model->v0, NULL));
  }
  MbsOptionsEnd();

  if (model->ops.set_from_options) {
    char title[128];

    PetscCall(PetscSNPrintf(title, sizeof(title), "Options of model %s", model->type));
    MbsOptionsBegin(model->comm, NULL, title, "MbsModel");
    PetscCall(model->ops.set_from_options(model, PetscOptionsObject));
    MbsOptionsEnd();
  }
  if (linearize) PetscCall(MbsModelLinearizeInPlace_Private(model));
  PetscFunctionReturn(0);
}

/*
  MbsModelSetSampleStep - The fixed step [s] the integrator resumes after a step shortened onto a sample time (0:
  adaptive steps). Not collective.
*/
PetscErrorCode MbsModelSetSampleStep(MbsModel model, PetscReal dt)
{
  PetscFunctionBeginUser;
  model->sample_dt = dt;
  PetscFunctionReturn(0);
}

/*
  MbsModelSetAnalysisStep - The step cap [s] of the frequencies a cost analyses (below the Nyquist step of the highest;
  0: none), which adaptive steps keep to. Not collective.
*/
PetscErrorCode MbsModelSetAnalysisStep(MbsModel model, PetscReal dt_max)
{
  PetscFunctionBeginUser;
  model->analysis_dt_max = dt_max;
  PetscFunctionReturn(0);
}

/*
  MbsModelFreezeSteps - With freeze, the next solve records its step points and later solves replay them (a gradient
  check's fixed function); without, the steps adapt again. Drops recorded steps either way. Not collective.
*/
PetscErrorCode MbsModelFreezeSteps(MbsModel model, PetscBool freeze)
{
  PetscFunctionBeginUser;
  model->freeze_steps = freeze;
  model->nfrozen      = 0;
  PetscCall(PetscFree(model->frozen_t));
  PetscFunctionReturn(0);
}

/*
  MbsModelRecordFrozenSteps - Records the n step points t of a solve, when steps are to be frozen and none are yet.
  Not collective.
*/
PetscErrorCode MbsModelRecordFrozenSteps(MbsModel model, PetscInt n, const PetscReal t[])
{
  PetscFunctionBeginUser;
  if (!model->freeze_steps || model->nfrozen) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &model->frozen_t));
  PetscCall(PetscArraycpy(model->frozen_t, t, n));
  model->nfrozen = n;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetFormWork - The workspace of the integration form (len reals, npivots integers), allocated on the first
  call and kept with the model; *fresh says it was allocated just now. Not collective.
*/
PetscErrorCode MbsModelGetFormWork(MbsModel model, PetscInt len, PetscInt npivots, PetscReal **work, PetscInt **pivots, PetscBool *fresh)
{
  PetscFunctionBeginUser;
  *fresh = (PetscBool)!model->form_work;
  if (*fresh) PetscCall(PetscMalloc2(len, &model->form_work, npivots, &model->form_pivots));
  *work   = model->form_work;
  *pivots = model->form_pivots;
  PetscFunctionReturn(0);
}

/*
  MbsModelSetSampleTimes - The times (increasing, inside the simulated interval) every later solve steps onto, so that
  the output there is a state of the integrator and not an interpolation between its steps; n = 0 drops them. Not
  collective.
*/
PetscErrorCode MbsModelSetSampleTimes(MbsModel model, PetscInt n, const PetscReal t[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(model->sample_t));
  model->nsample = n;
  if (!n) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &model->sample_t));
  PetscCall(PetscArraycpy(model->sample_t, t, n));
  PetscFunctionReturn(0);
}

/*
  MbsModelGetSampleTimes - The n sample times t every solve steps onto (MbsModelSetSampleTimes()), n = 0: none, the
  array staying the model's; and the fixed step dt [s] resumed after a step onto one (MbsModelSetSampleStep(), 0:
  adaptive steps). Any may be NULL. Not collective.
*/
PetscErrorCode MbsModelGetSampleTimes(MbsModel model, PetscInt *n, const PetscReal **t, PetscReal *dt)
{
  PetscFunctionBeginUser;
  if (n) *n = model->nsample;
  if (t) *t = model->sample_t;
  if (dt) *dt = model->sample_dt;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetFrozenSteps - The recorded step points that solves replay (MbsModelFreezeSteps()), n = 0: none; the array
  stays the model's. Not collective.
*/
PetscErrorCode MbsModelGetFrozenSteps(MbsModel model, PetscInt *n, const PetscReal **t)
{
  PetscFunctionBeginUser;
  *n = model->nfrozen;
  *t = model->frozen_t;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetStepCaps - The model's own step cap and that of the frequencies a cost analyses [s] (0: none; either may be
  NULL); MbsModelStepCap() is the smaller. Not collective.
*/
PetscErrorCode MbsModelGetStepCaps(MbsModel model, PetscReal *dt_max, PetscReal *analysis_dt_max)
{
  PetscFunctionBeginUser;
  if (dt_max) *dt_max = model->dt_max;
  if (analysis_dt_max) *analysis_dt_max = model->analysis_dt_max;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetJacobianSettings - Whether the integrator assembles the Jacobian sparse (-jacobian_sparse), and how many
  Newton iterations a forward solve keeps it (-jacobian_lag), and the degree of the extrapolation that starts each Newton
  solve (-newton_predictor), and whether that Newton treats the algebraic components as multipliers (-newton_multipliers);
  any may be NULL. Not collective.
*/
PetscErrorCode MbsModelGetJacobianSettings(MbsModel model, PetscBool *sparse, PetscInt *lag, PetscInt *predictor, PetscBool *multipliers)
{
  PetscFunctionBeginUser;
  if (sparse) *sparse = model->sparse_jacobian;
  if (lag) *lag = model->jacobian_lag;
  if (predictor) *predictor = model->newton_predictor;
  if (multipliers) *multipliers = model->newton_multipliers;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetPetscKLU - Whether the sparse Jacobian is factored by PETSc's KLU interface (-jacobian_petsc_klu) rather than
  by core/klu_refactor.c. Not collective.
*/
PetscErrorCode MbsModelGetPetscKLU(MbsModel model, PetscBool *petsc_klu)
{
  PetscFunctionBeginUser;
  *petsc_klu = model->petsc_klu;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetAdjointKLUReuse - The most corrections of a transposed solve of an adjoint sweep on KLU's kept factors
  (-adjoint_klu_reuse; 0: every step's Jacobian factored). Not collective.
*/
PetscErrorCode MbsModelGetAdjointKLUReuse(MbsModel model, PetscInt *reuse)
{
  PetscFunctionBeginUser;
  *reuse = model->adjoint_klu_reuse;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetJacobianWork - The n x n dense array the sparse path has the model write its Jacobian into, allocated on
  the first call and freed with the model. Not collective.
*/
PetscErrorCode MbsModelGetJacobianWork(MbsModel model, PetscReal **work)
{
  PetscFunctionBeginUser;
  if (!model->jacobian_work) PetscCall(PetscMalloc1(model->n * model->n, &model->jacobian_work));
  *work = model->jacobian_work;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetDifferentialInfo - Which of the n components are differential (PETSC_FALSE: algebraic, of a DAE), whether
  dF/dU' is constant, and the option that gives a DAE its ODE form (NULL: none); any may be NULL. Not collective.
*/
PetscErrorCode MbsModelGetDifferentialInfo(MbsModel model, const PetscBool **differential, PetscBool *constant_mass, const char **ode_form_option)
{
  PetscFunctionBeginUser;
  if (differential) *differential = model->differential;
  if (constant_mass) *constant_mass = model->constant_mass;
  if (ode_form_option) *ode_form_option = model->ode_form_option;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetParametersRead - The np current parameter values, read in place (valid until the next MbsModelSet...). Not
  collective.
*/
PetscErrorCode MbsModelGetParametersRead(MbsModel model, const PetscReal **p)
{
  PetscFunctionBeginUser;
  *p = model->p;
  PetscFunctionReturn(0);
}

/*
  MbsModelHasOutputP - Whether an output depends on the parameters directly (MbsModelOutputP() is not zero). Not
  collective.
*/
PetscErrorCode MbsModelHasOutputP(MbsModel model, PetscBool *has)
{
  PetscFunctionBeginUser;
  *has = (PetscBool) !!model->ops.output_p;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetNodalInput - The n nodes (t [s], F [N]) of a nodal input force (-input_file), n = 0 without one; the
  arrays stay the model's. Not collective.
*/
PetscErrorCode MbsModelGetNodalInput(MbsModel model, PetscInt *n, const PetscReal **t, const PetscReal **F)
{
  PetscFunctionBeginUser;
  *n = model->input.type == MBS_INPUT_NODAL ? model->input.n : 0;
  *t = model->input.t;
  *F = model->input.F;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetDesignSpec - The optimal input design problem of the model's spec (no parameters: none). Not collective.
*/
PetscErrorCode MbsModelGetDesignSpec(MbsModel model, const MbsDesignSpec **spec)
{
  PetscFunctionBeginUser;
  *spec = &model->design;
  PetscFunctionReturn(0);
}

/*
  MbsModelGetSpeedProfile - The engine speed of a model that has one (engine4, spring_chain, a model file with
  engine-order loads), as its options read it; NULL for a model without. The order analysis windows the model's own
  speed rather than reading -ramp_rpm and the rest again. Not collective.
*/
PetscErrorCode MbsModelGetSpeedProfile(MbsModel model, const MbsSpeedProfile **speed)
{
  PetscFunctionBeginUser;
  *speed = model->speed;
  PetscFunctionReturn(0);
}

/* The largest adaptive step: the model's own cap and that of the analysed frequencies, whichever is smaller (0: none) */
PetscReal MbsModelStepCap(MbsModel model)
{
  if (model->dt_max > 0 && model->analysis_dt_max > 0) return PetscMin(model->dt_max, model->analysis_dt_max);
  return PetscMax(model->dt_max, model->analysis_dt_max);
}

/*@C
  MbsModelDestroy - Frees the model. Not collective.
@*/
PetscErrorCode MbsModelDestroy(MbsModel *model)
{
  PetscFunctionBeginUser;
  if (!*model) PetscFunctionReturn(0);
  PetscCall(MbsSolveRefuseForget(*model));
  PetscCall(MbsModelReset_Private(*model));
  PetscCall(PetscFree(*model));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelView - Prints the model's type and parameter table. Collective on the viewer.
@*/
PetscErrorCode MbsModelView(MbsModel model, PetscViewer viewer)
{
  PetscBool described, linearized;
  char      plane[16]; /* a model from a file: planar z, or in 3D */

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(model->type, "described", &described));
  PetscCall(PetscStrcmp(model->type, "linearized", &linearized));
  if (strcmp(model->planar, "none")) PetscCall(PetscSNPrintf(plane, sizeof(plane), "planar %s", model->planar));
  else PetscCall(PetscStrncpy(plane, "in 3D", sizeof(plane)));
  if (described) PetscCall(PetscViewerASCIIPrintf(viewer, "Model described in %s: %" PetscInt_FMT " states, %s, output %s [%s]\n", model->model_file, model->n, plane, model->output_name, model->output_unit));
  else if (linearized && model->model_file[0])
    PetscCall(PetscViewerASCIIPrintf(viewer, "Model linearized: the linearisation of the model described in %s (%s) about its reference state, %" PetscInt_FMT " states, output %s [%s]\n", model->model_file, plane, model->n, model->output_name, model->output_unit));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "Model %s: %" PetscInt_FMT " states, output %s [%s]\n", model->type, model->n, model->output_name, model->output_unit));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (model->ops.channel_output && model->nchannel > 1) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "output channels:"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
    for (PetscInt c = 0; c < model->nchannel; c++) PetscCall(PetscViewerASCIIPrintf(viewer, " %s [%s]", model->channel_name[c], model->channel_unit[c]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  }
  for (PetscInt i = 0; i < model->np; i++) PetscCall(PetscViewerASCIIPrintf(viewer, "%-6s = %-12.8g %-10s %s\n", model->param_info[i].name, (double)model->p[i], model->param_info[i].unit, model->param_info[i].description));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelGetType(MbsModel model, const char **type)
{
  PetscFunctionBeginUser;
  *type = model->type;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetSizes - State size n, coordinates of the linearisation nq, number of parameters np. Not collective.
@*/
PetscErrorCode MbsModelGetSizes(MbsModel model, PetscInt *n, PetscInt *nq, PetscInt *np)
{
  PetscFunctionBeginUser;
  if (n) *n = model->n;
  if (nq) *nq = model->nq;
  if (np) *np = model->np;
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelGetParameterInfo(MbsModel model, const MbsParameterInfo **info)
{
  PetscFunctionBeginUser;
  *info = model->param_info;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetParameterIndex - Position of the named parameter; an unknown name is an error that lists the known ones. Not collective.
@*/
PetscErrorCode MbsModelGetParameterIndex(MbsModel model, const char name[], PetscInt *index)
{
  char known[512] = "";

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < model->np; i++) {
    PetscBool match;

    PetscCall(PetscStrcmp(model->param_info[i].name, name, &match));
    if (match) {
      *index = i;
      PetscFunctionReturn(0);
    }
    PetscCall(MbsStrlcat(known, " ", sizeof(known)));
    PetscCall(MbsStrlcat(known, model->param_info[i].name, sizeof(known)));
  }
  SETERRQ(model->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Model %s has no parameter '%s'; its parameters are:%s", model->type, name, known);
}

PetscErrorCode MbsModelGetParameters(MbsModel model, PetscReal p[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(p, model->p, model->np));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetParameters - Sets all parameter values after checking them against their bounds. Not collective.
@*/
PetscErrorCode MbsModelSetParameters(MbsModel model, const PetscReal p[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < model->np; i++) PetscCall(MbsModelCheckParameter_Private(model, PETSC_COMM_SELF, i, p[i]));
  PetscCall(PetscArraycpy(model->p, p, model->np));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetParameter - Sets parameter i to value, within its bounds. Not collective.
@*/
PetscErrorCode MbsModelSetParameter(MbsModel model, PetscInt i, PetscReal value)
{
  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < model->np, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model %s has no parameter %" PetscInt_FMT " (%" PetscInt_FMT " parameters)", model->type, i, model->np);
  PetscCall(MbsModelCheckParameter_Private(model, PETSC_COMM_SELF, i, value));
  model->p[i] = value;
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelGetOutputInfo(MbsModel model, const char **name, const char **unit)
{
  PetscFunctionBeginUser;
  if (name) *name = model->output_name;
  if (unit) *unit = model->output_unit;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetTimeSpan - The model's default interval [t0, tf] and time step [s]. Not collective.
@*/
PetscErrorCode MbsModelGetTimeSpan(MbsModel model, PetscReal *t0, PetscReal *tf, PetscReal *dt)
{
  PetscFunctionBeginUser;
  if (t0) *t0 = model->t0;
  if (tf) *tf = model->tf;
  if (dt) *dt = model->dt;
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(f, model->n));
  PetscCall(model->ops.residual(model, t, u, udot, f));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelJacobian - J = dF/dU + shift dF/dU' (n x n, column-major). Not collective.
@*/
PetscErrorCode MbsModelJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(J, model->n * model->n));
  PetscCall(model->ops.jacobian(model, t, u, udot, shift, J));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelJacobianMat - J = dF/dU + shift dF/dU' into the AIJ J made by MbsModelJacobianCreate, for a model that
  assembles its Jacobian sparse (ops.jacobian_mat; NULL: none, see MbsModelHasSparseJacobian). Not collective.
@*/
PetscErrorCode MbsModelJacobianMat(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, Mat J)
{
  PetscFunctionBeginUser;
  PetscCall(MatZeroEntries(J));
  PetscCall(model->ops.jacobian_mat(model, t, u, udot, shift, J));
  PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelJacobianCreate - The AIJ n x n of MbsModelJacobianMat, preallocated by the model from
  its places at the valid state u (the initial one). Not collective.
@*/
PetscErrorCode MbsModelJacobianCreate(MbsModel model, const PetscReal u[], Mat *J)
{
  PetscFunctionBeginUser;
  PetscCall(model->ops.jacobian_create(model, u, J));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelJacobianPCreate - The AIJ n x nid of MbsModelJacobianPMat: dF/dp's columns of the parameters id, preallocated
  by the model. Only for a model with a sparse Jacobian (MbsModelHasSparseJacobian). Not collective.
@*/
PetscErrorCode MbsModelJacobianPCreate(MbsModel model, PetscInt nid, const PetscInt id[], Mat *Jp)
{
  PetscFunctionBeginUser;
  PetscCall(model->ops.jacobian_p_create(model, nid, id, Jp));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelJacobianPMat - dF/dp's columns of the parameters of MbsModelJacobianPCreate into its AIJ Jp. Not collective.
@*/
PetscErrorCode MbsModelJacobianPMat(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], Mat Jp)
{
  PetscFunctionBeginUser;
  PetscCall(MatZeroEntries(Jp));
  PetscCall(model->ops.jacobian_p_mat(model, t, u, udot, Jp));
  PetscCall(MatAssemblyBegin(Jp, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Jp, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelHasSparseJacobian - Whether the model assembles its Jacobian sparse itself (the implicit form's: a model that
  does has a constant mass matrix, so its integrator never takes the explicit form). Not collective.
@*/
PetscBool MbsModelHasSparseJacobian(MbsModel model)
{
  return (PetscBool)(model->ops.jacobian_mat && model->ops.jacobian_p_mat && model->constant_mass);
}

/*@C
  MbsModelMass - The mass matrix E = dF/dU' (n x n, column-major) at (t, U): the model's own, or J(shift 1) - J(shift 0) at
  U' = udot with the n x n scratch work. Not collective.
@*/
PetscErrorCode MbsModelMass(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal E[], PetscReal work[])
{
  PetscInt n = model->n;

  PetscFunctionBeginUser;
  if (model->ops.mass) {
    PetscCall(PetscArrayzero(E, n * n));
    PetscCall(model->ops.mass(model, t, u, E));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsModelJacobian(model, t, u, udot, 1.0, E));
  PetscCall(MbsModelJacobian(model, t, u, udot, 0.0, work));
  for (PetscInt i = 0; i < n * n; i++) E[i] -= work[i];
  PetscFunctionReturn(0);
}

/*@C
  MbsModelJacobianP - dF/dp (n x np, column-major). Not collective.
@*/
PetscErrorCode MbsModelJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(Jp, model->n * model->np));
  PetscCall(model->ops.jacobian_p(model, t, u, udot, Jp));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelWriteIdentity - Attributes of group naming the model: 'model', and for a model described in a file the file
  ('model_file'), the checksum of the bytes read from it ('model_file_checksum'), which tell the file a result was
  made with from an edited one, and the plane it ran in ('planar': x, y, z, or none for 3D; the file's planar: or
  -model_planar), which the file alone does not tell. Not collective.
@*/
PetscErrorCode MbsModelWriteIdentity(MbsModel model, MbsH5Writer *writer, const char group[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsH5WriteAttribute(writer, group, "model", model->type));
  if (model->model_file[0]) {
    char text[32];

    PetscCall(PetscSNPrintf(text, sizeof(text), "%016llx", model->model_file_checksum));
    PetscCall(MbsH5WriteAttribute(writer, group, "model_file", model->model_file));
    PetscCall(MbsH5WriteAttribute(writer, group, "model_file_checksum", text));
    PetscCall(MbsH5WriteAttribute(writer, group, "planar", model->planar));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetPlanar - The plane a model from a file runs in, as its identity names it ("x", "y", "z", or "none" for 3D);
  NULL for a model without a file. Not collective.
@*/
PetscErrorCode MbsModelGetPlanar(MbsModel model, const char **planar)
{
  PetscFunctionBeginUser;
  *planar = model->model_file[0] ? model->planar : NULL;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelOutput - y(U) and, when dydu is not NULL, dy/dU. Not collective.
@*/
PetscErrorCode MbsModelOutput(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  if (dydu) PetscCall(PetscArrayzero(dydu, model->n));
  PetscCall(model->ops.output(model, t, u, y, dydu));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelOutputP - dy/dp (length np) of the output at (t, U): zero but for outputs that depend on the parameters
  directly. Not collective.
@*/
PetscErrorCode MbsModelOutputP(MbsModel model, PetscReal t, const PetscReal u[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(dydp, model->np));
  if (model->ops.output_p) PetscCall(model->ops.output_p(model, t, u, dydp));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetNumChannels - The number of output channels: every sensor of a described model, one (the output y) for a
  hand-coded model. Not collective.
@*/
PetscErrorCode MbsModelGetNumChannels(MbsModel model, PetscInt *nchannel)
{
  PetscFunctionBeginUser;
  *nchannel = model->ops.channel_output ? model->nchannel : 1;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetChannelInfo - Name and unit of output channel c (either may be NULL). Not collective.
@*/
PetscErrorCode MbsModelGetChannelInfo(MbsModel model, PetscInt c, const char **name, const char **unit)
{
  PetscInt nchannel;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(model, &nchannel));
  PetscCheck(c >= 0 && c < nchannel, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model %s has no output channel %" PetscInt_FMT " (%" PetscInt_FMT " channels)", model->type, c, nchannel);
  if (name) *name = model->ops.channel_output ? model->channel_name[c] : model->output_name;
  if (unit) *unit = model->ops.channel_output ? model->channel_unit[c] : model->output_unit;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelFindChannel - The index of the output channel called name; an unknown name is an error that names where it
  came from (source, e.g. a file and group, or an option) and the model's channels. Collective on the model's
  communicator.
@*/
PetscErrorCode MbsModelFindChannel(MbsModel model, const char name[], const char source[], PetscInt *c)
{
  PetscInt nchannel;
  char     known[512] = "";

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(model, &nchannel));
  for (*c = 0; *c < nchannel; (*c)++) {
    const char *channel;
    PetscBool   same;

    PetscCall(MbsModelGetChannelInfo(model, *c, &channel, NULL));
    PetscCall(PetscStrcmp(channel, name, &same));
    if (same) PetscFunctionReturn(0);
    PetscCall(MbsStrlcat(known, *c ? ", " : "", sizeof(known)));
    PetscCall(MbsStrlcat(known, channel, sizeof(known)));
  }
  SETERRQ(model->comm, PETSC_ERR_ARG_WRONG, "%s: channel '%s' is not an output channel of model %s, whose channels are: %s", source, name, model->type, known);
}

/*@C
  MbsModelChannelOutput - y_c(U) of output channel c and, when dydu is not NULL, dy_c/dU. Not collective.
@*/
PetscErrorCode MbsModelChannelOutput(MbsModel model, PetscInt c, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  if (!model->ops.channel_output) {
    PetscCheck(c == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model %s has one output channel, not channel %" PetscInt_FMT, model->type, c);
    PetscCall(MbsModelOutput(model, t, u, y, dydu));
    PetscFunctionReturn(0);
  }
  PetscAssert(c >= 0 && c < model->nchannel, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model %s has no output channel %" PetscInt_FMT, model->type, c);
  if (dydu) PetscCall(PetscArrayzero(dydu, model->n));
  PetscCall(model->ops.channel_output(model, c, t, u, y, dydu));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelChannelOutputP - dy_c/dp (length np) of output channel c at (t, U): zero but for channels that depend on the
  parameters directly (an accelerometer). Not collective.
@*/
PetscErrorCode MbsModelChannelOutputP(MbsModel model, PetscInt c, PetscReal t, const PetscReal u[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  if (!model->ops.channel_output) {
    PetscCheck(c == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Model %s has one output channel, not channel %" PetscInt_FMT, model->type, c);
    PetscCall(MbsModelOutputP(model, t, u, dydp));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscArrayzero(dydp, model->np));
  if (model->ops.channel_output_p) PetscCall(model->ops.channel_output_p(model, c, t, u, dydp));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelChannelValues - y_k of the output channels channel[0..nc) (-1: the output; channel NULL: channels 0..nc-1) at
  (t, U), the work they share done once (an accelerometer's accelerations). Not collective.
@*/
PetscErrorCode MbsModelChannelValues(MbsModel model, PetscInt nc, const PetscInt channel[], PetscReal t, const PetscReal u[], PetscReal y[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelChannelsWeighted(model, nc, channel, t, u, NULL, NULL, y, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelChannelsWeighted - For the output channels channel[0..nc) (-1: the output; channel NULL: channels 0..nc-1) at
  (t, U): their values y_k (y may be NULL without weigh), weights w_k (weigh(ctx, nc, y, w) when weigh is not NULL, else
  given; w NULL: values alone), and sum_k w_k dy_k/dU added into dydu (n) and sum_k w_k dy_k/dp into dydp (np), each may
  be NULL. The adjoint reads only such weighted sums, which a model with ops.channels forms from one evaluation of what
  its channels share (an accelerometer's accelerations) and one assembly for all of them. Not collective.
@*/
PetscErrorCode MbsModelChannelsWeighted(MbsModel model, PetscInt nc, const PetscInt channel[], PetscReal t, const PetscReal u[], MbsChannelWeightFn weigh, void *ctx, PetscReal y[], PetscReal w[], PetscReal dydu[], PetscReal dydp[])
{
  PetscInt n = model->n, np = model->np;

  PetscFunctionBeginUser;
  if (model->ops.channels) {
    PetscCall(model->ops.channels(model, nc, channel, t, u, weigh, ctx, y, w, dydu, dydp));
    PetscFunctionReturn(0);
  }
  if (!model->channel_work) PetscCall(PetscMalloc1(n + np, &model->channel_work));
  for (PetscInt k = 0; k < nc && y; k++) {
    PetscInt c = channel ? channel[k] : k;

    if (c < 0) PetscCall(MbsModelOutput(model, t, u, &y[k], NULL));
    else PetscCall(MbsModelChannelOutput(model, c, t, u, &y[k], NULL));
  }
  if (weigh) PetscCall(weigh(ctx, nc, y, w));
  for (PetscInt k = 0; k < nc && w && (dydu || dydp); k++) {
    PetscInt   c  = channel ? channel[k] : k;
    PetscReal *du = model->channel_work, *dp = du + n, value;

    if (w[k] == 0) continue;
    if (dydu && c < 0) PetscCall(MbsModelOutput(model, t, u, &value, du));
    else if (dydu) PetscCall(MbsModelChannelOutput(model, c, t, u, &value, du));
    if (dydp && c < 0) PetscCall(MbsModelOutputP(model, t, u, dp));
    else if (dydp) PetscCall(MbsModelChannelOutputP(model, c, t, u, dp));
    for (PetscInt i = 0; dydu && i < n; i++) dydu[i] += w[k] * du[i];
    for (PetscInt i = 0; dydp && i < np; i++) dydp[i] += w[k] * dp[i];
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsModelExcitation - The external force F(t) acting on the model [N]; on a model written in C, less the force u of
  the controller in the loop on its force coordinate (its one force input). Not collective.

  A model file's forces with input: true (several, each with its own loop) take their controllers' forces in the
  residual, on their own elements: F(t) here is the first excitation element's law and subtracts no loop's force, which
  would belong to another element. No caller meets a model file with a loop closed on it: the explicit form
  (integration_form.c) refuses a DAE, which every model file is (each body's orthonormality rows), and a linearized or
  sensitivity-extended model asks its base, whose inputs no controller drives.
@*/
PetscErrorCode MbsModelExcitation(MbsModel model, PetscReal t, PetscReal *force)
{
  PetscFunctionBeginUser;
  *force = 0;
  if (model->input.type != MBS_INPUT_MODEL) PetscCall(MbsModelInputForce(model, t, force));
  else if (model->ops.excitation) PetscCall(model->ops.excitation(model, t, force));
  if (model->force_coordinate >= 0) *force -= model->control_force[0];
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetNumControlInputs - The force inputs a controller in the loop can drive: the force coordinate of a model
  written in C, or each force with input: true of a model file, in the file's order. Not collective.
@*/
PetscErrorCode MbsModelGetNumControlInputs(MbsModel model, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = model->force_coordinate >= 0 ? 1 : model->ncontrol;
  PetscFunctionReturn(0);
}

/* Force input k exists (MbsModelGetNumControlInputs()) */
static PetscErrorCode MbsModelCheckControlInput_Private(MbsModel model, PetscInt k)
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumControlInputs(model, &n));
  PetscCheck(n > 0, model->comm, PETSC_ERR_SUP, "Model %s has no force input that a controller could drive", model->type);
  PetscCheck(k >= 0 && k < n, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s has %" PetscInt_FMT " force inputs that a controller could drive, not input %" PetscInt_FMT, model->type, n, k);
  PetscFunctionReturn(0);
}

/* nloop loops on the force inputs input[0 .. nloop), each an input of the model and driven by one loop only */
PetscErrorCode MbsModelCheckLoops_Private(MbsModel model, PetscInt nloop, const PetscInt input[])
{
  PetscFunctionBeginUser;
  PetscCheck(nloop >= 1 && nloop <= MBS_MAX_CONTROL, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "A closed loop needs 1 to %d controllers, got %" PetscInt_FMT, MBS_MAX_CONTROL, nloop);
  for (PetscInt l = 0; l < nloop; l++) {
    PetscCall(MbsModelCheckControlInput_Private(model, input[l]));
    for (PetscInt k = 0; k < l; k++) PetscCheck(input[k] != input[l], model->comm, PETSC_ERR_ARG_WRONG, "Loops %" PetscInt_FMT " and %" PetscInt_FMT " drive the same force input %" PetscInt_FMT, k, l, input[l]);
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetControlInput - The name of force input k (a model file's force element; NULL for a force coordinate). Not
  collective.
@*/
PetscErrorCode MbsModelGetControlInput(MbsModel model, PetscInt k, const char **name)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelCheckControlInput_Private(model, k));
  *name = model->force_coordinate >= 0 ? NULL : model->control_input[k];
  PetscFunctionReturn(0);
}

/*@C
  MbsModelControlOptionsPrefix - The options prefix of the controller of force input k, into prefix (len characters):
  "" for the first (-controller, -controller_sensor, ...), "FORCE_" for a further force with input: true
  (-FORCE_controller, -FORCE_controller_sensor, ...). Not collective.
@*/
PetscErrorCode MbsModelControlOptionsPrefix(MbsModel model, PetscInt k, size_t len, char prefix[])
{
  const char *force = NULL;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetControlInput(model, k, &force));
  if (k) PetscCall(PetscSNPrintf(prefix, len, "%s_", force));
  else prefix[0] = 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetControlForce - The force u [N] of the controller that closes the loop on force input k (the force
  coordinate, or a model file's force with input: true) from the model's output or the channel of
  MbsModelSetControlSensor(), held until the next call (the actuator pushes back: that force becomes F(t) - u). Not
  collective.
@*/
PetscErrorCode MbsModelSetControlForce(MbsModel model, PetscInt k, PetscReal u)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelCheckControlInput_Private(model, k));
  model->control_force[k] = u;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetControlSensor - The output channel that the controller of force input k reads (option, e.g.
  -controller_sensor): any sensor of a model file, or NULL or "" for the model's output. An unknown name is an error
  that names the option, the model file and the model's channels. Collective on the model's communicator.
@*/
PetscErrorCode MbsModelSetControlSensor(MbsModel model, PetscInt k, const char option[], const char name[])
{
  char     source[PETSC_MAX_PATH_LEN + 256];
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumControlInputs(model, &n));
  PetscCheck(k >= 0 && k < PetscMax(n, 1), model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s has %" PetscInt_FMT " force inputs that a controller could drive, not input %" PetscInt_FMT, model->type, n, k);
  model->control_channel[k] = -1;
  if (!name || !name[0]) PetscFunctionReturn(0);
  if (model->model_file[0]) PetscCall(PetscSNPrintf(source, sizeof(source), "Option %s %s, model file '%s'", option, name, model->model_file));
  else PetscCall(PetscSNPrintf(source, sizeof(source), "Option %s %s", option, name));
  PetscCall(MbsModelFindChannel(model, name, source, &model->control_channel[k]));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelSetControlLoop - Closes the loop on force input k with the controller: its sensor is the channel that the
  controller's -controller_sensor names (-FORCE_controller_sensor for a further force, MbsModelControlOptionsPrefix()).
  With a viewer, says which channel it reads and which force it drives. Collective on the model's communicator.
@*/
PetscErrorCode MbsModelSetControlLoop(MbsModel model, PetscInt k, MbsController controller, PetscViewer viewer)
{
  const char *sensor, *name, *unit, *force;
  char        option[320], prefix[160];

  PetscFunctionBeginUser;
  PetscCall(MbsControllerGetSensor(controller, &sensor));
  PetscCall(MbsModelGetControlInput(model, k, &force));
  PetscCall(MbsModelControlOptionsPrefix(model, k, sizeof(prefix), prefix));
  PetscCall(PetscSNPrintf(option, sizeof(option), "-%scontroller_sensor", prefix));
  PetscCall(MbsModelSetControlSensor(model, k, option, sensor));
  PetscCall(MbsModelGetControlSensor(model, k, &name, &unit));
  if (viewer) PetscCall(PetscViewerASCIIPrintf(viewer, "  controller %s reads the %s %s [%s] and drives %s%s\n", controller->symbol, sensor[0] ? "channel" : "output", name, unit, force ? "force " : "the force coordinate", force ? force : ""));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelGetControlSensor - Name and unit (either may be NULL) of the channel that the controller of force input k
  reads. Not collective.
@*/
PetscErrorCode MbsModelGetControlSensor(MbsModel model, PetscInt k, const char **name, const char **unit)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < MBS_MAX_CONTROL, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Force input %" PetscInt_FMT " of model %s is out of range", k, model->type);
  if (model->control_channel[k] >= 0) PetscCall(MbsModelGetChannelInfo(model, model->control_channel[k], name, unit));
  else {
    if (name) *name = model->output_name;
    if (unit) *unit = model->output_unit;
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsModelControlSensor - The value y(U) at t of the channel that the controller of force input k reads. Not
  collective.
@*/
PetscErrorCode MbsModelControlSensor(MbsModel model, PetscInt k, PetscReal t, const PetscReal u[], PetscReal *y)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < MBS_MAX_CONTROL, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Force input %" PetscInt_FMT " of model %s is out of range", k, model->type);
  PetscCall(MbsModelChannelValues(model, 1, &model->control_channel[k], t, u, y));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelControlGainUnits - The units of K_p, K_i, K_d of a PID with output u [N] on the channel that the controller
  of force input k reads (N/m, N/(m s), N s/m on a position), each into a buffer of len characters. Not collective.
@*/
PetscErrorCode MbsModelControlGainUnits(MbsModel model, PetscInt k, size_t len, char kp[], char ki[], char kd[])
{
  const char *unit;
  char        y[64];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetControlSensor(model, k, NULL, &unit));
  PetscCall(PetscSNPrintf(y, sizeof(y), strpbrk(unit, "/ ") ? "(%s)" : "%s", unit)); /* m/s: N/(m/s), not N/m/s */
  PetscCall(PetscSNPrintf(kp, len, "N/%s", y));
  PetscCall(PetscSNPrintf(ki, len, "N/(%s s)", y));
  PetscCall(PetscSNPrintf(kd, len, "N s/%s", y));
  PetscFunctionReturn(0);
}

/* The input b (nq) and output rows s_q, s_v (nq each) of the linearisation of the loop on force input k: the force
   coordinate's unit vector and dy/dU of an ODE model at rest, or a model file's force with input: true and the rows of
   the channel its controller reads (MbsModelLinearizeIO()), which must not read accelerations (the derivative term
   would need the third derivative) */
static PetscErrorCode MbsModelClosedLoopIO_Private(MbsModel model, PetscInt k, PetscReal b[], PetscReal sq[], PetscReal sv[])
{
  PetscInt    m = model->nq, a = model->force_coordinate, c = model->control_channel[k];
  PetscReal  *B, *Cq, *Cv, *Ca, y, acceleration = 0;
  const char *sensor;

  PetscFunctionBeginUser;
  if (a >= 0) {
    PetscReal *u, *dydu;

    PetscCheck(model->n == 2 * m && !model->ops.initial_state, model->comm, PETSC_ERR_SUP, "Model %s is not an ODE in (q, q'): its output cannot be fed back through a linearisation in q", model->type);
    PetscCall(PetscCalloc2(model->n, &u, model->n, &dydu));
    PetscCall(MbsModelOutput(model, model->t0, u, &y, dydu)); /* s_q, s_v at the operating point q = q' = 0 */
    for (PetscInt j = 0; j < m; j++) {
      b[j]  = j == a;
      sq[j] = dydu[j];
      sv[j] = dydu[m + j];
    }
    PetscCall(PetscFree2(u, dydu));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsModelGetControlSensor(model, k, &sensor, NULL));
  if (c < 0) PetscCall(MbsModelFindChannel(model, sensor, "The model's output", &c));
  PetscCall(MbsModelLinearizeIO(model, model->control_input[k], NULL, &B, &Cq, &Cv, &Ca));
  for (PetscInt j = 0; j < m; j++) {
    b[j]  = B[j];
    sq[j] = Cq[c * m + j];
    sv[j] = Cv[c * m + j];
    acceleration += PetscAbsReal(Ca[c * m + j]);
  }
  PetscCall(PetscFree4(B, Cq, Cv, Ca));
  PetscCheck(acceleration == 0, model->comm, PETSC_ERR_SUP, "Model %s: the channel %s the controller reads measures accelerations, which a controller's derivative term would differentiate once more; close the loop on a position or velocity", model->type, sensor);
  PetscFunctionReturn(0);
}

/*@C
  MbsModelLinearizeClosedLoop - M, C, K (nq x nq, or nq + nloop with the integral coordinates; caller frees with
  PetscFree3) of the linearisation with nloop PIDs, the one of gains K_p, K_i, K_d = gain[3 l .. 3 l + 2] closing the
  loop from its sensor y_l = s_q q + s_v q' to force input b = input[l] (the force coordinate e_a or a model file's
  force with input: true; pid_sdof.md, section 6, Eq. 9), each adding its rank-one terms:

    (M + K_d b s_v^T) q'' + (C + K_p b s_v^T + K_d b s_q^T) q' + (K + K_p b s_q^T) q [+ K_i b z_l] = 0

  With integral, the state of each integral term is an extra coordinate z_l = int y_l dt, z_l' - s_q q - s_v q' = 0, a
  row without mass (one infinite eigenvalue each). Not collective.
@*/
PetscErrorCode MbsModelLinearizeClosedLoop(MbsModel model, PetscInt nloop, const PetscInt input[], const PetscReal gain[], PetscBool integral, PetscInt *nq, PetscReal **M, PetscReal **C, PetscReal **K)
{
  PetscInt   m = model->nq, size = m + (integral ? nloop : 0);
  PetscReal *M0, *C0, *K0, *b, *sq, *sv;

  PetscFunctionBeginUser;
  PetscCall(MbsModelCheckLoops_Private(model, nloop, input));
  PetscCall(MbsModelLinearize(model, &m, &M0, &C0, &K0));
  PetscCall(PetscCalloc3(size * size, M, size * size, C, size * size, K));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      MBS_IJ(*M, i, j, size) = MBS_IJ(M0, i, j, m);
      MBS_IJ(*C, i, j, size) = MBS_IJ(C0, i, j, m);
      MBS_IJ(*K, i, j, size) = MBS_IJ(K0, i, j, m);
    }
  PetscCall(PetscFree3(M0, C0, K0));
  PetscCall(PetscMalloc3(m, &b, m, &sq, m, &sv));
  for (PetscInt l = 0; l < nloop; l++) {
    const PetscReal *g = gain + 3 * l;

    MbsCallUndo(MbsModelClosedLoopIO_Private(model, input[l], b, sq, sv), (PetscFree3(b, sq, sv), PetscFree3(*M, *C, *K)));
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt j = 0; j < m; j++) {
        MBS_IJ(*M, i, j, size) += g[2] * b[i] * sv[j];
        MBS_IJ(*C, i, j, size) += g[0] * b[i] * sv[j] + g[2] * b[i] * sq[j];
        MBS_IJ(*K, i, j, size) += g[0] * b[i] * sq[j];
      }
    for (PetscInt j = 0; j < m && integral; j++) {
      MBS_IJ(*K, m + l, j, size) = -sq[j];
      MBS_IJ(*C, m + l, j, size) = -sv[j];
      MBS_IJ(*K, j, m + l, size) = g[1] * b[j];
    }
    if (integral) MBS_IJ(*C, m + l, m + l, size) = 1;
  }
  *nq = size;
  PetscCall(PetscFree3(b, sq, sv));
  PetscFunctionReturn(0);
}

/*
  LU with partial pivoting of the n x n column-major A in place, as LAPACK's getrf (same pivot choice). pivots has 3n
  entries: the 0-based pivots, then for each column k the rows k+1 .. l_end-1 of its multipliers and u_begin .. k-1 of
  its entries of U above the diagonal (l_end, u_begin). The explicit form factors E at every stage of every step, and
  E has 8 to 20 rows and is mostly zero (the unit rows q' - v, diagonal blocks): LAPACK's per-call overhead and its
  dense updates cost more than the arithmetic that is left when zeros are skipped. Returns the index of the first
  zero pivot, or -1.
*/
PetscInt MbsDenseLUFactor(PetscInt n, PetscReal A[], PetscInt pivots[])
{
  PetscInt *rows = pivots + n;

  for (PetscInt k = 0; k < n; k++) {
    PetscInt  p = k, l_end = k + 1;
    PetscReal inverse;

    for (PetscInt i = k + 1; i < n; i++) {
      PetscReal a = PetscAbsReal(MBS_IJ(A, i, k, n));

      if (a == 0) continue;
      l_end = i + 1;
      if (a > PetscAbsReal(MBS_IJ(A, p, k, n))) p = i;
    }
    pivots[k] = p;
    if (MBS_IJ(A, p, k, n) == 0) return k;
    if (p != k) {
      for (PetscInt j = 0; j < n; j++) {
        PetscReal swap = MBS_IJ(A, k, j, n);

        MBS_IJ(A, k, j, n) = MBS_IJ(A, p, j, n);
        MBS_IJ(A, p, j, n) = swap;
      }
      for (PetscInt j = 0; j < k; j++) /* a multiplier of an earlier column may have moved down to row p */
        if (MBS_IJ(A, p, j, n) != 0) rows[2 * j] = PetscMax(rows[2 * j], p + 1);
    }
    rows[2 * k] = l_end;
    inverse     = 1 / MBS_IJ(A, k, k, n);
    for (PetscInt i = k + 1; i < l_end; i++) MBS_IJ(A, i, k, n) *= inverse;
    for (PetscInt j = k + 1; j < n && l_end > k + 1; j++) {
      PetscReal u_kj = MBS_IJ(A, k, j, n);

      if (u_kj == 0) continue;
      for (PetscInt i = k + 1; i < l_end; i++) MBS_IJ(A, i, j, n) -= MBS_IJ(A, i, k, n) * u_kj;
    }
  }
  for (PetscInt k = 0; k < n; k++) {
    PetscInt u_begin = 0;

    while (u_begin < k && MBS_IJ(A, u_begin, k, n) == 0) u_begin++;
    rows[2 * k + 1] = u_begin;
  }
  return -1;
}

/* B <- A^{-1} B for the ncol columns of B (n x ncol, column-major), A factored by MbsDenseLUFactor() */
void MbsDenseLUSolve(PetscInt n, const PetscReal LU[], const PetscInt pivots[], PetscInt ncol, PetscReal B[])
{
  const PetscInt *rows = pivots + n;

  for (PetscInt c = 0; c < ncol; c++) {
    PetscReal *b = B + c * n;

    for (PetscInt k = 0; k < n; k++) {
      PetscReal swap = b[k];

      b[k]         = b[pivots[k]];
      b[pivots[k]] = swap;
    }
    for (PetscInt k = 0; k < n; k++)
      if (b[k] != 0)
        for (PetscInt i = k + 1; i < rows[2 * k]; i++) b[i] -= MBS_IJ(LU, i, k, n) * b[k];
    for (PetscInt k = n - 1; k >= 0; k--) {
      if (b[k] == 0) continue;
      b[k] /= MBS_IJ(LU, k, k, n);
      for (PetscInt i = rows[2 * k + 1]; i < k; i++) b[i] -= MBS_IJ(LU, i, k, n) * b[k];
    }
  }
}

/*
  b <- A^{-T} b, A factored by MbsDenseLUFactor(): P A = L U, so A^T x = b is U^T w = b (forward), L^T v = w
  (backward) and x = P^T v (the row swaps undone in reverse order). The adjoint of an explicit step needs one such
  solve per stage (lambda^T dg/dU = -(E^{-T} lambda)^T dF/dU), where dg/dU itself takes n solves.
*/
void MbsDenseLUSolveTranspose(PetscInt n, const PetscReal LU[], const PetscInt pivots[], PetscReal b[])
{
  const PetscInt *rows = pivots + n;

  for (PetscInt k = 0; k < n; k++) {
    for (PetscInt i = rows[2 * k + 1]; i < k; i++) b[k] -= MBS_IJ(LU, i, k, n) * b[i];
    b[k] /= MBS_IJ(LU, k, k, n);
  }
  for (PetscInt k = n - 1; k >= 0; k--)
    for (PetscInt i = k + 1; i < rows[2 * k]; i++) b[k] -= MBS_IJ(LU, i, k, n) * b[i];
  for (PetscInt k = n - 1; k >= 0; k--) {
    PetscReal swap = b[k];

    b[k]         = b[pivots[k]];
    b[pivots[k]] = swap;
  }
}

/* Solves A x = b in place (A n x n column-major, overwritten), reporting a singular A. */
PetscErrorCode MbsDenseSolve_Private(MbsModel model, PetscInt n, PetscReal A[], PetscReal b[])
{
  PetscInt *pivots, zero_pivot;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(3 * n, &pivots));
  zero_pivot = MbsDenseLUFactor(n, A, pivots);
  if (zero_pivot < 0) MbsDenseLUSolve(n, A, pivots, 1, b);
  PetscCall(PetscFree(pivots));
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model %s: the system of its initial state is singular (zero pivot in column %" PetscInt_FMT "); a DAE model must provide its own consistent initial state", model->type, zero_pivot);
  PetscFunctionReturn(0);
}

/*
  The explicit rate g(U) = -E(U)^{-1} R(U), R the residual at U' = 0, with E = dF/dU' left factored in E for further
  solves (MbsDenseLUSolve with pivots, 3n entries); work is n x n scratch.
*/
PetscErrorCode MbsModelExplicitRate(MbsModel model, PetscReal t, const PetscReal u[], PetscReal E[], PetscReal work[], PetscInt pivots[], PetscReal rate[])
{
  PetscInt n = model->n, zero_pivot;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(work, n));
  PetscCall(MbsModelResidual(model, t, u, work, rate));
  for (PetscInt i = 0; i < n; i++) rate[i] = -rate[i];
  PetscCall(MbsModelMass(model, t, u, rate, E, work));
  zero_pivot = MbsDenseLUFactor(n, E, pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model %s: the mass matrix dF/dU' is singular at t = %g s (zero pivot in column %" PetscInt_FMT ")", model->type, (double)t, zero_pivot);
  MbsDenseLUSolve(n, E, pivots, 1, rate);
  PetscFunctionReturn(0);
}

/* The rates udot of an ODE model's state u at t0, from F(t0, u, udot) = 0 */
PetscErrorCode MbsModelInitialRates(MbsModel model, PetscReal t0, const PetscReal u[], PetscReal udot[])
{
  PetscInt   n = model->n, *pivots;
  PetscReal *E, *work;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(n * n, &E, n * n, &work, 3 * n, &pivots));
  MbsCallCleanup(MbsModelExplicitRate(model, t0, u, E, work, pivots, udot), PetscFree3(E, work, pivots));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelInitialState - Consistent U(t0) and U'(t0). Not collective.
@*/
PetscErrorCode MbsModelInitialState(MbsModel model, PetscReal t0, PetscReal u[], PetscReal udot[])
{
  PetscInt n = model->n;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(u, n));
  PetscCall(PetscArrayzero(udot, n));
  if (model->ops.initial_state) {
    PetscCall(model->ops.initial_state(model, t0, u, udot));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscArraycpy(u, model->q0, model->nq));
  PetscCall(PetscArraycpy(u + model->nq, model->v0, model->nq));
  PetscCall(MbsModelInitialRates(model, t0, u, udot));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelInitialStateTry - MbsModelInitialState(), except that a start the model refuses at its current parameters is no
  error: *usable is PETSC_FALSE and MbsModelStartRefusal() says why. The model raises MBS_ERR_START_REFUSED for
  parameters outside its domain (no pose satisfies the joints, an axis turned onto its normals' branch, a frame that
  is no rotation), which a line search meets at a trial step and must step back from like from a diverged solve; every
  other error stays one. Not collective.
@*/
PetscErrorCode MbsModelInitialStateTry(MbsModel model, PetscReal t0, PetscReal u[], PetscReal udot[], PetscBool *usable)
{
  PetscErrorCode ierr;
  char          *specific = NULL;

  PetscFunctionBeginUser;
  model->start_refusal[0] = 0;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MbsModelInitialState(model, t0, u, udot);
  PetscCall(PetscPopErrorHandler());
  *usable = (PetscBool)!ierr;
  if (!ierr) PetscFunctionReturn(0);
  PetscCall(PetscErrorMessage(ierr, NULL, &specific));
  PetscCheck(ierr == MBS_ERR_START_REFUSED, PETSC_COMM_SELF, ierr, "%s", specific ? specific : "the initial state failed");
  PetscCall(PetscStrncpy(model->start_refusal, specific && specific[0] ? specific : "the start is outside the model's domain", sizeof(model->start_refusal)));
  PetscFunctionReturn(0);
}

/* MbsModelStartRefusal - Why the last solve's start was refused (MbsModelInitialStateTry()), or NULL */
const char *MbsModelStartRefusal(MbsModel model)
{
  return model->start_refusal[0] ? model->start_refusal : NULL;
}

/*@C
  MbsModelLinearize - M, C, K (nq x nq, column-major, caller frees with PetscFree3) about the model's operating point. Not collective.
@*/
PetscErrorCode MbsModelLinearize(MbsModel model, PetscInt *nq, PetscReal **M, PetscReal **C, PetscReal **K)
{
  PetscInt m = model->nq;

  PetscFunctionBeginUser;
  PetscCheck(model->ops.linearize, model->comm, PETSC_ERR_SUP, "Model %s has no linearisation", model->type);
  PetscCall(PetscCalloc3(m * m, M, m * m, C, m * m, K));
  MbsCallUndo(model->ops.linearize(model, *M, *C, *K), PetscFree3(*M, *C, *K));
  *nq = m;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelLinearizeFirstOrder - The first-order linearisation B x' = A x (N x N, column-major, caller frees with
  PetscFree2) of a model with internal first-order states, x = (y, y', s): the first nq components are the coordinates
  of MbsModelLinearize(), then their rates, then the ns internal states, N = 2 nq + ns. N = 0 (A = B = NULL) for a model
  without internal states, whose linearisation is M, C, K alone. Not collective.
@*/
PetscErrorCode MbsModelLinearizeFirstOrder(MbsModel model, PetscInt *N, PetscReal **A, PetscReal **B)
{
  PetscFunctionBeginUser;
  *N = 0;
  *A = *B = NULL;
  if (model->ops.linearize_first_order) PetscCall(model->ops.linearize_first_order(model, N, A, B));
  PetscFunctionReturn(0);
}

/* MbsModelLinearizeIO() without its refusal of internal states */
static PetscErrorCode MbsModelLinearizeIO_Private(MbsModel model, const char load[], const char **used, PetscReal **B, PetscReal **Cq, PetscReal **Cv, PetscReal **Ca)
{
  PetscInt    m = model->nq, nchannel;
  const char *name;

  PetscFunctionBeginUser;
  PetscCheck(model->ops.linearize_io, model->comm, PETSC_ERR_SUP, "Model %s has no frequency response (its linearisation names no load and no output rows); describe it in a model file", model->type);
  PetscCall(MbsModelGetNumChannels(model, &nchannel));
  PetscCall(PetscCalloc4(m, B, nchannel * m, Cq, nchannel * m, Cv, nchannel * m, Ca));
  PetscCall(model->ops.linearize_io(model, load, &name, *B, *Cq, *Cv, *Ca));
  if (used) *used = name;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelLinearizeIO - The input and outputs of the linearisation (MbsModelLinearize()) for its frequency response: B
  (nq), the generalised force of the load element named load (NULL: the model's first excitation) per unit of its size,
  the name of that element in used (may be NULL; valid as long as the model), and the rows of every output channel c,
  y_c = Cq x + Cv x' + Ca x'' (nchannel x nq each, row c at c nq); caller frees the four arrays with PetscFree4. A model
  with internal states is refused: M, C, K hold them, so a second-order system built on these rows would miss their
  branches (MbsModelLinearizeFrequencyIO() gives the rows of the first-order form). Not collective.
@*/
PetscErrorCode MbsModelLinearizeIO(MbsModel model, const char load[], const char **used, PetscReal **B, PetscReal **Cq, PetscReal **Cv, PetscReal **Ca)
{
  PetscInt   N;
  PetscReal *A, *E;

  PetscFunctionBeginUser;
  PetscCall(MbsModelLinearizeFirstOrder(model, &N, &A, &E));
  PetscCall(PetscFree2(A, E));
  PetscCheck(!N, model->comm, PETSC_ERR_SUP, "Model %s (%s) has %" PetscInt_FMT " internal states (maxwell elements): its M, C, K hold them, so a second-order linearisation would miss their branches; mbsid frf and eigen use its first-order form",
             model->type, model->model_file, N - 2 * model->nq);
  PetscCall(MbsModelLinearizeIO_Private(model, load, used, B, Cq, Cv, Ca));
  PetscFunctionReturn(0);
}

/* The size n of MbsModelLinearizeFrequency()'s matrices: nq, or 2 nq + ns with internal states */
static PetscErrorCode MbsModelFrequencySize_Private(MbsModel model, PetscInt *n)
{
  PetscInt   N;
  PetscReal *A, *B;

  PetscFunctionBeginUser;
  PetscCall(MbsModelLinearizeFirstOrder(model, &N, &A, &B));
  PetscCall(PetscFree2(A, B));
  *n = N ? N : model->nq;
  PetscFunctionReturn(0);
}

/* M, C, K of MbsModelLinearizeFrequency() into L (3 n^2, zeroed here) */
static PetscErrorCode MbsModelFrequencyForm_Private(MbsModel model, PetscInt n, PetscReal L[])
{
  PetscInt   N;
  PetscReal *A, *B;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(L, 3 * n * n));
  PetscCall(MbsModelLinearizeFirstOrder(model, &N, &A, &B));
  if (!N) {
    PetscCall(model->ops.linearize(model, L, L + n * n, L + 2 * n * n));
    PetscFunctionReturn(0);
  }
  for (PetscInt k = 0; k < n * n; k++) {
    L[n * n + k]     = B[k];
    L[2 * n * n + k] = -A[k];
  }
  PetscCall(PetscFree2(A, B));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelLinearizeFrequency - The dynamic stiffness Z(w) = K - w^2 M + i w C of the linearisation for its frequency
  response: n x n matrices M, C, K (column-major, caller frees with PetscFree3). Without internal states these are
  MbsModelLinearize()'s on its nq coordinates; with internal states (MbsModelLinearizeFirstOrder(), B x' = A x) they act
  on x = (y, y', s), n = 2 nq + ns: M = 0, C = B, K = -A, so that Z(w) x = (i w B - A) x is the first-order form's
  harmonic balance, a load entering the rows of y' and the outputs reading y. Not collective.
@*/
PetscErrorCode MbsModelLinearizeFrequency(MbsModel model, PetscInt *n, PetscReal **M, PetscReal **C, PetscReal **K)
{
  PetscReal *L;

  PetscFunctionBeginUser;
  PetscCheck(model->ops.linearize, model->comm, PETSC_ERR_SUP, "Model %s has no linearisation", model->type);
  PetscCall(MbsModelFrequencySize_Private(model, n));
  PetscCall(PetscMalloc1(3 * *n * *n, &L));
  MbsCallUndo(MbsModelFrequencyForm_Private(model, *n, L), PetscFree(L));
  PetscCall(PetscMalloc3(*n * *n, M, *n * *n, C, *n * *n, K));
  PetscCall(PetscArraycpy(*M, L, *n * *n));
  PetscCall(PetscArraycpy(*C, L + *n * *n, *n * *n));
  PetscCall(PetscArraycpy(*K, L + 2 * *n * *n, *n * *n));
  PetscCall(PetscFree(L));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelLinearizeFrequencyIO - The input and output rows of MbsModelLinearizeIO() on the unknowns of the dynamic
  stiffness (MbsModelLinearizeFrequency(), n of them): with internal states, on x = (y, y', s) the load B in the rows of
  y' and the rows Cq, Cv, Ca on y (y' = i w y, y'' = -w^2 y in the steady state), zero elsewhere (nchannel x n each);
  n into *n. Caller frees the four arrays with PetscFree4. Not collective.
@*/
PetscErrorCode MbsModelLinearizeFrequencyIO(MbsModel model, const char load[], const char **used, PetscInt *n, PetscReal **B, PetscReal **Cq, PetscReal **Cv, PetscReal **Ca)
{
  PetscInt   nq = model->nq, nc;
  PetscReal *B0, *Cq0, *Cv0, *Ca0;

  PetscFunctionBeginUser;
  PetscCall(MbsModelFrequencySize_Private(model, n));
  PetscCall(MbsModelLinearizeIO_Private(model, load, used, B, Cq, Cv, Ca));
  if (*n == nq) PetscFunctionReturn(0);
  PetscCall(MbsModelGetNumChannels(model, &nc));
  B0  = *B;
  Cq0 = *Cq;
  Cv0 = *Cv;
  Ca0 = *Ca;
  MbsCallUndo(PetscCalloc4(*n, B, nc * *n, Cq, nc * *n, Cv, nc * *n, Ca), PetscFree4(B0, Cq0, Cv0, Ca0));
  for (PetscInt i = 0; i < nq; i++) {
    (*B)[nq + i] = B0[i];
    for (PetscInt c = 0; c < nc; c++) {
      (*Cq)[c * *n + i] = Cq0[c * nq + i];
      (*Cv)[c * *n + i] = Cv0[c * nq + i];
      (*Ca)[c * *n + i] = Ca0[c * nq + i];
    }
  }
  PetscCall(PetscFree4(B0, Cq0, Cv0, Ca0));
  PetscFunctionReturn(0);
}

/* M, C, K (3 n^2) and the load and output rows B (n), Cq, Cv, Ca (nc x n each) of the frequency form into L */
static PetscErrorCode MbsModelFrequencyFormIO_Private(MbsModel model, const char load[], PetscInt n, PetscInt nc, PetscReal L[])
{
  PetscInt   m;
  PetscReal *B, *Cq, *Cv, *Ca, *io = L + 3 * n * n;

  PetscFunctionBeginUser;
  PetscCall(MbsModelFrequencyForm_Private(model, n, L));
  PetscCall(MbsModelLinearizeFrequencyIO(model, load, NULL, &m, &B, &Cq, &Cv, &Ca));
  PetscCall(PetscArraycpy(io, B, n));
  PetscCall(PetscArraycpy(io + n, Cq, nc * n));
  PetscCall(PetscArraycpy(io + n + nc * n, Cv, nc * n));
  PetscCall(PetscArraycpy(io + n + 2 * nc * n, Ca, nc * n));
  PetscCall(PetscFree4(B, Cq, Cv, Ca));
  PetscFunctionReturn(0);
}

/*
  The frequency form (MbsModelFrequencyFormIO_Private()) at p_i = value. A pose the model refuses to linearise about
  there (PETSC_ERR_ARG_WRONG: a geometry parameter that preloads a bushing leaves no equilibrium) is named as the
  parameter's: the pose at p_i itself was accepted.
*/
static PetscErrorCode MbsModelLinearizeAt_Private(MbsModel model, const char load[], PetscInt n, PetscInt nc, PetscInt i, PetscReal value, PetscReal L[])
{
  PetscReal      keep     = model->p[i];
  char          *specific = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  model->p[i] = value;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MbsModelFrequencyFormIO_Private(model, load, n, nc, L);
  PetscCall(PetscPopErrorHandler());
  model->p[i] = keep;
  if (!ierr) PetscFunctionReturn(0);
  PetscCall(PetscErrorMessage(ierr, NULL, &specific));
  PetscCheck(ierr != PETSC_ERR_ARG_WRONG || value == keep, model->comm, PETSC_ERR_SUP, "Parameter %s of model %s: its derivative of the frequency response needs the linearisation at %s = %g, which is refused (%s): a parameter whose move loads the model has no frequency response beside its value; leave it out of -identify",
             model->param_info[i].name, model->type, model->param_info[i].name, (double)value, specific ? specific : "");
  SETERRQ(model->comm, ierr, "%s", specific ? specific : "the linearisation failed");
}

/* The part of the frequency form (MbsModelLinearizeDerivative()'s layout) that entry k belongs to */
static PetscInt MbsFrequencyFormPart_Private(PetscInt n, PetscInt nc, PetscInt k)
{
  if (k < 3 * n * n) return k / (n * n);
  k -= 3 * n * n;
  return k < n ? 3 : 4 + (k - n) / (nc * n);
}

/* The central quotient (L(p_i + h) - L(p_i - h)) / (2 h) of the frequency form into D (size), L scratch (2 size) */
static PetscErrorCode MbsModelLinearizeQuotient_Private(MbsModel model, const char load[], PetscInt n, PetscInt nc, PetscInt i, PetscReal h, PetscInt size, PetscReal L[], PetscReal D[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelLinearizeAt_Private(model, load, n, nc, i, model->p[i] + h, L));
  PetscCall(MbsModelLinearizeAt_Private(model, load, n, nc, i, model->p[i] - h, L + size));
  for (PetscInt k = 0; k < size; k++) D[k] = (L[k] - L[size + k]) / (2 * h);
  PetscFunctionReturn(0);
}

/* Whether every |gap_k| is within entry k's tolerance tol_k; otherwise, for each part w of the frequency form, its
   worst entry's k (-1: none) and gap_k / tol_k (infinite where a gap is not finite) */
static PetscBool MbsFrequencyFormWithin_Private(PetscInt n, PetscInt nc, PetscInt size, const PetscReal gap[], const PetscReal tol[], PetscInt worst[7], PetscReal excess[7])
{
  PetscBool within = PETSC_TRUE;

  for (PetscInt w = 0; w < 7; w++) {
    worst[w]  = -1;
    excess[w] = 0;
  }
  for (PetscInt k = 0; k < size; k++) {
    PetscInt  w    = MbsFrequencyFormPart_Private(n, nc, k);
    PetscReal over = gap[k] == 0 ? 0 : PetscAbsReal(gap[k]) / tol[k];

    if (!(over <= 1) && !(over <= excess[w])) { /* NaN or the part's worst so far */
      excess[w] = PetscIsInfOrNanReal(over) ? PETSC_INFINITY : over;
      worst[w]  = k;
      within    = PETSC_FALSE;
    }
  }
  return within;
}

/* The end of a derivative of the linearisation: its scratch freed, the model's continuation along p_i ended */
static PetscErrorCode MbsModelLinearizeAlongEnd_Private(MbsModel model, PetscReal *work)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(work));
  if (model->ops.linearize_along) PetscCall(model->ops.linearize_along(model, -1));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsModelLinearizeDerivative_Private(MbsModel model, const char load[], PetscInt i, PetscReal dL[], PetscReal **work)
{
  PetscInt   n, nc, size, worst[7], w = 0;
  PetscReal  s       = model->p[i] != 0 ? PetscAbsReal(model->p[i]) : 1, *L, *D2, *D4, *tol, *gap, *change;
  PetscReal  part[7] = {0}, excess[7];
  PetscBool  within, richardson = PETSC_FALSE;
  const char what[7][24]  = {"M", "C", "K", "load row", "position rows", "velocity rows", "acceleration rows"};
  char       channel[160] = "";

  PetscFunctionBeginUser;
  PetscCall(MbsModelFrequencySize_Private(model, &n));
  PetscCall(MbsModelGetNumChannels(model, &nc));
  size = 3 * n * n + n + 3 * nc * n;
  PetscCall(PetscMalloc1(7 * size, work));
  L      = *work;
  D2     = L + 2 * size;
  D4     = D2 + size;
  tol    = D4 + size;
  gap    = tol + size;
  change = gap + size;
  PetscCall(MbsModelLinearizeAt_Private(model, load, n, nc, i, model->p[i] + s, L));
  PetscCall(MbsModelLinearizeAt_Private(model, load, n, nc, i, model->p[i] - s, L + size));
  PetscCall(MbsModelLinearizeAt_Private(model, load, n, nc, i, model->p[i], dL));
  for (PetscInt side = 0; side < 2; side++)
    for (PetscInt k = 0; k < size; k++)
      PetscCheck(!PetscIsInfOrNanReal(L[k + side * size]), model->comm, PETSC_ERR_SUP, "Parameter %s of model %s: its linearisation at %s = %g (the step %g of its exact derivative) is not finite, so the frequency response has no exact derivative for it at %s = %g; leave it out of -identify with -cost frf",
                 model->param_info[i].name, model->type, model->param_info[i].name, (double)(model->p[i] + (side ? -s : s)), (double)s, model->param_info[i].name, (double)model->p[i]);
  for (PetscInt k = 0; k < size; k++) {
    PetscInt which = MbsFrequencyFormPart_Private(n, nc, k);

    part[which] = PetscMax(part[which], PetscMax(PetscAbsReal(dL[k]), PetscMax(PetscAbsReal(L[k]), PetscAbsReal(L[size + k]))));
  }
  for (PetscInt k = 0; k < size; k++) {
    change[k] = PetscAbsReal(L[k] - L[size + k]) / 2;
    tol[k]    = 1e-9 * change[k] + 1e-13 * part[MbsFrequencyFormPart_Private(n, nc, k)];
    gap[k]    = L[k] - 2 * dL[k] + L[size + k];
    dL[k]     = (L[k] - L[size + k]) / (2 * s);
  }
  if (MbsFrequencyFormWithin_Private(n, nc, size, gap, tol, worst, excess)) PetscFunctionReturn(0); /* affine */
  /* a quadratic has the same central quotient at every step; a cubic term c differs by 3/4 c s^2 */
  PetscCall(MbsModelLinearizeQuotient_Private(model, load, n, nc, i, s / 2, size, L, D2));
  for (PetscInt k = 0; k < size; k++) gap[k] = s * (D2[k] - dL[k]);
  within = MbsFrequencyFormWithin_Private(n, nc, size, gap, tol, worst, excess);
  if (!within) {
    /* D(h) = dL/dp_i + c3 h^2 + c5 h^4: up to degree 4 (a basis and multipliers continued along p_i, linearize_along),
       (4 D(h/2) - D(h)) / 3 is exact at every h, so at h = s and s/2 */
    PetscCall(MbsModelLinearizeQuotient_Private(model, load, n, nc, i, s / 4, size, L, D4));
    for (PetscInt k = 0; k < size; k++) {
      PetscReal at_s = (4 * D2[k] - dL[k]) / 3;

      dL[k]  = (4 * D4[k] - D2[k]) / 3;
      gap[k] = s * (at_s - dL[k]);
    }
    within     = MbsFrequencyFormWithin_Private(n, nc, size, gap, tol, worst, excess);
    richardson = PETSC_TRUE;
  }
  while (!within && worst[w] < 0) w++; /* the first part that fails */
  if (!within && w >= 4) {             /* an output row (channel c's row of n, row by row): the sensor is the cause, name it */
    const char *name, *unit;

    PetscCall(MbsModelGetChannelInfo(model, (worst[w] - 3 * n * n - n - (w - 4) * nc * n) / n, &name, &unit));
    PetscCall(PetscSNPrintf(channel, sizeof(channel), " of channel %s", name));
  }
  PetscCheck(within, model->comm, PETSC_ERR_SUP, "Parameter %s of model %s enters the linearisation's %s%s nonlinearly, not as a polynomial of degree 4 or less (at %s = %g, an entry that changes by %g over the step %g has derivatives from %s that differ by %g, times the step %g, %g times its tolerance: 1e-9 of that change plus 1e-13 of the part's largest entry %g): the frequency response has no exact derivative for it; leave it out of -identify",
             model->param_info[i].name, model->type, what[w], channel, model->param_info[i].name, (double)model->p[i], (double)change[worst[w]], (double)s, richardson ? "the Richardson extrapolations of steps (s, s/2) and (s/2, s/4)" : "the central quotients at steps s and s/2", (double)(gap[worst[w]] / s), (double)gap[worst[w]], (double)excess[w], (double)part[w]);
  PetscFunctionReturn(0);
}

/*@C
  MbsModelLinearizeDerivative - The derivative by p_i of the frequency form of the linearisation: dM/dp_i, dC/dp_i,
  dK/dp_i of the dynamic stiffness (MbsModelLinearizeFrequency(), n x n each), then those of the load and output rows
  (MbsModelLinearizeFrequencyIO() of the force element load: B (n), Cq, Cv, Ca (nchannel x n each)), into dL (3 n^2 + n
  + 3 nchannel n). The linearisations of models in natural coordinates are polynomials of low degree in each parameter
  alone: affine in masses, moments, stiffnesses, damping constants, modal damping, the coefficients of polynomial,
  table and amplitude laws, a Maxwell branch's k_m and c_m, and a force's or sensor's point (its rows); quadratic in a
  bushing's point (its stiffness acts through the point's lever twice); of degree up to 4 in any parameter of a model
  whose joints move with p, whose start pose, free-motion basis and force Jacobian at rest the model continues along
  p_i with their exact derivatives (ops.linearize_along, for the time of this call). For degree 2 or less, (L(p_i + s) - L(p_i - s)) / (2 s) is dL/dp_i exactly for any s, not a
  finite-difference estimate; s = |p_i| (1 at 0). Every check holds each entry to its own tolerance, 1e-9 of its change
  |L(p_i + s) - L(p_i - s)| / 2 over the step plus 1e-13 of the largest entry of its part (M, C, K, the load row, the
  position, velocity or acceleration rows; the rounding of entries summed from the elements). Where the second
  difference L(p_i + s) - 2 L(p_i) + L(p_i - s) of an entry exceeds it, the quotient with s / 2 must agree with the
  one with s (their difference times s), or else their Richardson extrapolation (4 D(s/2) - D(s)) / 3, exact to degree
  4, must agree with the one from s/2 and s/4: a parameter that enters otherwise (a spring-damper's point, through its
  direction) is refused, as is one whose linearisation at p_i +- s is not finite (a friction law's velocity scale at
  0). Not collective.
@*/
PetscErrorCode MbsModelLinearizeDerivative(MbsModel model, const char load[], PetscInt i, PetscReal dL[])
{
  PetscReal *work = NULL;

  PetscFunctionBeginUser;
  PetscCheck(model->ops.linearize, model->comm, PETSC_ERR_SUP, "Model %s has no linearisation", model->type);
  if (model->ops.linearize_along) PetscCall(model->ops.linearize_along(model, i));
  MbsCallCleanup(MbsModelLinearizeDerivative_Private(model, load, i, dL, &work), MbsModelLinearizeAlongEnd_Private(model, work));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelModeCoordinates - T (nz x nq, column-major, caller frees with PetscFree): maps a vector of the linearisation's
  coordinates (MbsModelLinearize()) to the model's body coordinates z, e.g. the displacement and small rotation
  vector of each body; what (caller frees) says what z holds. nz = 0, T = what = NULL for a model whose own coordinates
  are the ones to report. Not collective.
@*/
PetscErrorCode MbsModelModeCoordinates(MbsModel model, PetscInt *nz, PetscReal **T, char **what)
{
  PetscFunctionBeginUser;
  *nz   = 0;
  *T    = NULL;
  *what = NULL;
  if (model->ops.mode_coordinates) PetscCall(model->ops.mode_coordinates(model, nz, T, what));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelEnergyFamilies - nfamily matrices M_F (nfamily x nq x nq, column-major, caller frees with PetscFree) of the
  linearisation's coordinates that sum to its M: Re(x^H M_F x) / x^H M x is the share of family F in the kinetic energy of
  mode x; names (caller frees) lists the families, comma-separated. nfamily = 0 for a model without them (only models
  with flexible bodies have them: axial, y-bending, z-bending, torsion, other bodies). Not collective.
@*/
PetscErrorCode MbsModelEnergyFamilies(MbsModel model, PetscInt *nfamily, PetscReal **MF, char **names)
{
  PetscFunctionBeginUser;
  *nfamily = 0;
  *MF      = NULL;
  *names   = NULL;
  if (model->ops.energy_families) PetscCall(model->ops.energy_families(model, nfamily, MF, names));
  PetscFunctionReturn(0);
}

/*
  MbsModelInitialStateP - dU(t0)/dp_id[k] into the columns k of S (n x nid, column-major), for a model whose consistent
  initial state depends on its parameters (the multipliers of a DAE started loaded or moving); zero for the others.
  One consistent initial state and its derivative: a caller that needs every row forms them once. Not collective.
*/
PetscErrorCode MbsModelInitialStateP(MbsModel model, PetscReal t0, PetscInt nid, const PetscInt id[], PetscReal S[])
{
  PetscInt   n = model->n;
  PetscReal *u, *udot, *dudp;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(S, n * nid));
  if (!model->ops.initial_state_p) PetscFunctionReturn(0);
  PetscCall(PetscCalloc3(n, &u, n, &udot, n * model->np, &dudp));
  MbsCallUndo(MbsModelInitialState(model, t0, u, udot), PetscFree3(u, udot, dudp)); /* a refused start leaves nothing allocated */
  MbsCallUndo(model->ops.initial_state_p(model, t0, u, udot, dudp), PetscFree3(u, udot, dudp));
  for (PetscInt k = 0; k < nid; k++)
    for (PetscInt i = 0; i < n; i++) S[i + k * n] = MBS_IJ(dudp, i, id[k], n);
  PetscCall(PetscFree3(u, udot, dudp));
  PetscFunctionReturn(0);
}

/*
  MbsModelInitialStateGradient - Adds lambda0^T dU(t0)/dp_id[k] to grad[k], lambda0 = dJ/dU(t0) from an adjoint solve
  (MbsModelInitialStateP). Not collective.
*/
PetscErrorCode MbsModelInitialStateGradient(MbsModel model, PetscReal t0, PetscInt nid, const PetscInt id[], const PetscReal lambda0[], PetscReal grad[])
{
  PetscInt   n = model->n;
  PetscReal *S;

  PetscFunctionBeginUser;
  if (!model->ops.initial_state_p) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n * nid, &S));
  MbsCallUndo(MbsModelInitialStateP(model, t0, nid, id, S), PetscFree(S));
  for (PetscInt k = 0; k < nid; k++)
    for (PetscInt i = 0; i < n; i++) grad[k] += lambda0[i] * S[i + k * n];
  PetscCall(PetscFree(S));
  PetscFunctionReturn(0);
}
