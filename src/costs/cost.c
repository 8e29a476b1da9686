/*
  The cost registry: a cost compares the simulated output of one experiment with a measurement. Each
  type is one file and one MbsCostRegister line:

    spectrum  J = 1/4 sum_k (A_k^2 + B_k^2 - |X_k|^2)^2 over a band or engine orders (cost_spectrum.c)
    time      J = sum_i w_i (y(t_i) - y_i)^2 over the measured samples, w_i their trapezoid weights (cost_time.c)
    frf       J = 1/2 sum_j |H(f_j) - Hbar(f_j)|^2 of the linearisation's frequency response, simulating nothing (cost_frf.c)

  Several measured channels (a file with /channels/NAME groups, measurement.c): a part per compared channel c, a cost
  of the same type on the model's output channel of that name alone, and

    J = sum_c w_c J_c,   w_c = 1 / J_c(y_c = 0) by default (-channel_weights NAME:w,... sets them),

  J_c(y_c = 0) the cost of channel c for a model output that is zero everywhere: the channel's measured power in the
  cost's own measure (time: sum_i w_i y_i^2; spectrum: 1/4 sum_k |X_k|^4, amplitude form 1/2 sum_k |X_k|^2), so each
  channel enters as its relative misfit, whatever its unit and size. A one-channel file (tables at its root) compares
  the model's output y with weight 1, as it always has. The adjoint forcing is the weighted sum over the channels,
  dJ/dU = sum_c w_c dJ_c/dy_c dy_c/dU: still one forcing for one adjoint solve.
*/
#include "costs/costimpl.h"

static PetscFunctionList MbsCostList              = NULL;
static PetscBool         MbsCostRegisterAllCalled = PETSC_FALSE;

PetscErrorCode MbsCostRegister(const char name[], PetscErrorCode (*create)(MbsCost))
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListAdd(&MbsCostList, name, create));
  PetscFunctionReturn(0);
}

/* Frees the registry at PetscFinalize() */
static PetscErrorCode MbsCostFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&MbsCostList));
  MbsCostRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MbsCostRegisterAll - Registers the costs "spectrum", "time" and "frf". Not collective.
@*/
PetscErrorCode MbsCostRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (MbsCostRegisterAllCalled) PetscFunctionReturn(0);
  MbsCostRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(MbsCostFinalizePackage));
  PetscCall(MbsCostRegister("spectrum", MbsCostCreate_Spectrum));
  PetscCall(MbsCostRegister("time", MbsCostCreate_Time));
  PetscCall(MbsCostRegister("frf", MbsCostCreate_Frf));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostCreate - Creates a cost for the output of the model; its type is chosen by MbsCostSetFromOptions(). Not collective.
@*/
PetscErrorCode MbsCostCreate(MbsModel model, MbsCost *cost)
{
  PetscFunctionBeginUser;
  PetscCall(MbsCostRegisterAll());
  PetscCall(PetscNew(cost));
  (*cost)->model = model;
  PetscFunctionReturn(0);
}

/*@C
  MbsCostSetFromOptions - Reads -cost and the options of that cost. Collective on the model's communicator.
@*/
PetscErrorCode MbsCostSetFromOptions(MbsCost cost)
{
  char type[32]                     = "spectrum";
  PetscErrorCode (*create)(MbsCost) = NULL;

  PetscFunctionBeginUser;
  MbsOptionsBegin(cost->model->comm, NULL, "Cost", "MbsCost");
  PetscCall(PetscOptionsFList("-cost", "Cost compared with the measurement", "MbsCostSetFromOptions", MbsCostList, type, type, sizeof(type), NULL));
  PetscCall(PetscOptionsString("-channels", "Measured channels the cost compares, comma separated (default: every channel of the file)", "MbsCostSetUp", cost->channels, cost->channels, sizeof(cost->channels), NULL));
  PetscCall(PetscOptionsString("-channel_weights", "Weights w_c of J = sum_c w_c J_c as NAME:w,... (default: 1/J_c at a zero model output, the channel's measured power; 1 for a one-channel file)", "MbsCostSetUp", cost->channel_weights, cost->channel_weights,
                               sizeof(cost->channel_weights), NULL));
  MbsOptionsEnd();
  PetscCall(PetscFunctionListFind(MbsCostList, type, &create));
  if (!create) {
    char known[256];

    PetscCall(MbsFunctionListNames(MbsCostList, known, sizeof(known)));
    SETERRQ(cost->model->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown cost '%s' (-cost); known costs: %s", type, known);
  }
  PetscCall(PetscStrncpy(cost->type, type, sizeof(cost->type)));
  PetscCall(create(cost));
  if (cost->ops.set_from_options) PetscCall(cost->ops.set_from_options(cost));
  PetscFunctionReturn(0);
}

/* A part of the cost on measured channel meas (path names the file), compared with model output channel 'channel' */
static PetscErrorCode MbsCostPartCreate_Private(MbsCost cost, const char path[], const MbsMeasurement *meas, PetscInt channel, MbsCost *part)
{
  PetscErrorCode (*create)(MbsCost) = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(part));
  (*part)->model   = cost->model;
  (*part)->channel = channel;
  PetscCall(PetscStrncpy((*part)->type, cost->type, sizeof((*part)->type)));
  PetscCall(PetscStrncpy((*part)->measurement, path, sizeof((*part)->measurement)));
  if (channel >= 0) {
    PetscCall(PetscStrncpy((*part)->channel_name, meas->output, sizeof((*part)->channel_name)));
    PetscCall(MbsModelGetChannelInfo(cost->model, channel, NULL, &(*part)->unit));
  } else (*part)->unit = cost->model->output_unit;
  PetscCall(PetscFunctionListFind(MbsCostList, cost->type, &create));
  PetscCall(create(*part));
  if ((*part)->ops.set_from_options) PetscCall((*part)->ops.set_from_options(*part));
  PetscCall((*part)->ops.set_up(*part, path, meas));
  PetscFunctionReturn(0);
}

/* The measured channels the cost compares (-channels), each with the model's channel of its name and unit */
static PetscErrorCode MbsCostSelectChannels_Private(MbsCost cost, const char path[], const MbsMeasurement *meas, PetscInt *nselect, PetscInt select[], PetscInt channel[])
{
  MbsModel              model = cost->model;
  const MbsMeasurement *measured;
  PetscInt              nmeasured;
  char                **names       = NULL;
  char                  known[1024] = "";
  int                   nnames      = 0;

  PetscFunctionBeginUser;
  PetscCall(MbsMeasurementGetChannels(meas, &nmeasured, &measured));
  if (!meas->nchannel) { /* the root of a one-channel file: the model's output */
    PetscCheck(!cost->channels[0], model->comm, PETSC_ERR_ARG_WRONG, "-channels %s: measurement file '%s' has one channel (its tables at the root), not named channels /channels/NAME", cost->channels, path);
    *nselect   = 1;
    select[0]  = 0;
    channel[0] = -1;
    PetscFunctionReturn(0);
  }
  for (PetscInt c = 0; c < nmeasured; c++) {
    PetscCall(MbsStrlcat(known, c ? ", " : "", sizeof(known)));
    PetscCall(MbsStrlcat(known, measured[c].output, sizeof(known)));
  }
  if (cost->channels[0]) PetscCall(PetscStrToArray(cost->channels, ',', &nnames, &names));
  *nselect = cost->channels[0] ? nnames : nmeasured;
  for (PetscInt k = 0; k < *nselect; k++) {
    select[k] = k;
    for (PetscInt c = 0; names && c < nmeasured; c++)
      if (!strcmp(names[k], measured[c].output)) select[k] = c;
    if (names && strcmp(names[k], measured[select[k]].output)) {
      char name[256];

      PetscCall(PetscStrncpy(name, names[k], sizeof(name)));
      PetscCall(PetscStrToArrayDestroy(nnames, names));
      SETERRQ(model->comm, PETSC_ERR_ARG_WRONG, "-channels: measurement file '%s' has no channel '%s'; its channels are: %s", path, name, known);
    }
    for (PetscInt l = 0; l < k; l++) PetscCheck(select[l] != select[k], model->comm, PETSC_ERR_ARG_WRONG, "-channels names channel '%s' twice", measured[select[k]].output);
  }
  if (names) PetscCall(PetscStrToArrayDestroy(nnames, names));
  for (PetscInt k = 0; k < *nselect; k++) {
    const MbsMeasurement *m = &measured[select[k]];
    char                  source[PETSC_MAX_PATH_LEN + 128];
    const char           *unit;
    PetscBool             same;

    PetscCall(PetscSNPrintf(source, sizeof(source), "Measurement file '%s', group /channels/%s", path, m->output));
    PetscCall(MbsModelFindChannel(model, m->output, source, &channel[k]));
    PetscCall(MbsModelGetChannelInfo(model, channel[k], NULL, &unit));
    PetscCall(PetscStrcmp(m->units, unit, &same));
    PetscCheck(same, model->comm, PETSC_ERR_ARG_INCOMP, "%s is in units '%s', but output channel %s of model %s is in '%s'", source, m->units, m->output, model->type, unit);
  }
  PetscFunctionReturn(0);
}

/* w_c of -channel_weights NAME:w,...; the others 1/J_c(y_c = 0) for named channels, 1 for a one-channel file */
static PetscErrorCode MbsCostWeights_Private(MbsCost cost, const char path[])
{
  MbsModel     model = cost->model;
  const char **names;
  char         where[PETSC_MAX_PATH_LEN + 64];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(cost->npart, &names));
  for (PetscInt c = 0; c < cost->npart; c++) {
    names[c]        = cost->part[c]->channel_name;
    cost->weight[c] = -1;
  }
  PetscCall(PetscSNPrintf(where, sizeof(where), "measurement file '%s' that the cost compares (-channels)", path));
  MbsCallUndo(MbsNamedValues(model->comm, "-channel_weights", cost->channel_weights, "channel", where, cost->npart, names, cost->weight), PetscFree(names));
  PetscCall(PetscFree(names));
  for (PetscInt c = 0; c < cost->npart; c++) {
    MbsCost   part = cost->part[c];
    PetscReal zero;

    if (cost->weight[c] > 0) continue;
    if (part->channel < 0) {
      cost->weight[c] = 1;
      continue;
    }
    PetscCall(part->ops.zero_output(part, &zero));
    PetscCheck(zero > 0 && !PetscIsInfOrNanReal(zero), model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Measurement file '%s': the data of channel %s in the cost have the measured power %g, which cannot normalise it; give its weight with -channel_weights %s:w", path,
               part->channel_name, (double)zero, part->channel_name);
    cost->weight[c] = 1 / zero;
  }
  PetscFunctionReturn(0);
}

/* The parts of the cost, one per compared channel; all must ask the integrator for the same sample times */
static PetscErrorCode MbsCostSetUpParts_Private(MbsCost cost, const char path[], const MbsMeasurement *meas, PetscInt select[], PetscInt channel[])
{
  MbsModel              model = cost->model;
  const MbsMeasurement *measured;
  PetscInt              nmeasured, nselect, nsample = 0, npart_sample;
  PetscReal             dt_max = 0, *sample_t = NULL, part_dt_max;
  const PetscReal      *part_sample_t;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSelectChannels_Private(cost, path, meas, &nselect, select, channel));
  PetscCall(PetscCalloc2(nselect, &cost->part, nselect, &cost->weight));
  PetscCall(PetscMalloc3(nselect, &cost->part_channel, nselect, &cost->part_y, nselect, &cost->part_w));
  PetscCall(MbsMeasurementGetChannels(meas, &nmeasured, &measured));
  for (PetscInt k = 0; k < nselect; k++) {
    PetscCall(MbsModelSetAnalysisStep(model, 0)); /* each part sets the step cap of its own frequencies */
    PetscCall(MbsCostPartCreate_Private(cost, path, &measured[select[k]], channel[k], &cost->part[cost->npart++]));
    cost->part_channel[k] = cost->part[k]->channel;
    PetscCall(MbsModelGetStepCaps(model, NULL, &part_dt_max));
    PetscCall(MbsModelGetSampleTimes(model, &npart_sample, &part_sample_t, NULL));
    if (part_dt_max > 0) dt_max = dt_max > 0 ? PetscMin(dt_max, part_dt_max) : part_dt_max;
    if (k == 0) {
      nsample = npart_sample;
      PetscCall(PetscMalloc1(nsample, &sample_t));
      PetscCall(PetscArraycpy(sample_t, part_sample_t, nsample));
    } else {
      PetscBool same = (PetscBool)(nsample == npart_sample);

      for (PetscInt i = 0; same && i < nsample; i++) same = (PetscBool)(sample_t[i] == part_sample_t[i]);
      if (!same) PetscCall(PetscFree(sample_t));
      PetscCheck(same, model->comm, PETSC_ERR_ARG_INCOMP, "Measurement file '%s': channel %s has other /signal/t samples than channel %s, which cost %s compares on the same steps; give every channel the same /signal/t", path, cost->part[k]->channel_name,
                 cost->part[0]->channel_name, cost->type);
    }
  }
  PetscCall(PetscFree(sample_t));
  PetscCall(MbsModelSetAnalysisStep(model, dt_max));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostSetUp - Takes the measured data the cost compares with from the measurement (path names the file in
  messages): every measured channel (or those of -channels), each against the model's output channel of its name,
  weighted by -channel_weights or by default (cost.c); the measurement must outlive the cost. Collective on the
  model's communicator.
@*/
PetscErrorCode MbsCostSetUp(MbsCost cost, const char path[], const MbsMeasurement *meas)
{
  PetscInt nmeasured, *select, *channel;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(cost->measurement, path, sizeof(cost->measurement)));
  nmeasured = meas->nchannel ? meas->nchannel : 1;
  PetscCall(PetscMalloc2(nmeasured, &select, nmeasured, &channel));
  MbsCallCleanup(MbsCostSetUpParts_Private(cost, path, meas, select, channel), PetscFree2(select, channel));
  PetscCall(MbsCostWeights_Private(cost, path));
  PetscFunctionReturn(0);
}

/* The channel of a part in a signal: the model's output y (channel -1) or its output channel */
static PetscErrorCode MbsCostPartSignal_Private(MbsCost part, const MbsSignal *signal, MbsSignal *view)
{
  PetscFunctionBeginUser;
  if (part->channel < 0) *view = *signal;
  else PetscCall(MbsSignalGetChannel(signal, part->channel, view));
  PetscFunctionReturn(0);
}

/*
  MbsCostSimulates - Whether the cost compares a simulated signal (spectrum, time), or the model itself and simulates
  nothing (frf: MbsCostGradient()). Not collective.
*/
PetscErrorCode MbsCostSimulates(MbsCost cost, PetscBool *simulates)
{
  PetscFunctionBeginUser;
  *simulates = (PetscBool)!cost->ops.gradient;
  PetscFunctionReturn(0);
}

/*
  MbsCostGradient - J, (grad not NULL) dJ/dp of the parameters id[0..nid-1] and (G not NULL) its Gauss-Newton matrix
  (nid x nid, added into G) of a cost that simulates nothing, at the model's current parameters. Not collective.
*/
PetscErrorCode MbsCostGradient(MbsCost cost, PetscInt nid, const PetscInt id[], PetscReal *J, PetscReal grad[], PetscReal G[])
{
  PetscFunctionBeginUser;
  PetscCheck(cost->ops.gradient, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cost %s compares a simulated signal and has no Gauss-Newton matrix; -cost frf has", cost->type);
  PetscCall(cost->ops.gradient(cost, nid, id, J, grad, G));
  PetscCheck(!PetscIsInfOrNanReal(*J), PETSC_COMM_SELF, PETSC_ERR_FP, "Cost %s of model %s against measurement file '%s' is %g: the measured values overflow it; check the file's values and units", cost->type, cost->model->type, cost->measurement, (double)*J);
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostGetType(MbsCost cost, const char **type)
{
  PetscFunctionBeginUser;
  *type = cost->type;
  PetscFunctionReturn(0);
}

/*
  MbsCostGetAdjointTerms - Whether the cost's adjoint has a density r' integrated with the integrator's rule, and
  whether it has terms at step points (MbsCostOps). Not collective.
*/
PetscErrorCode MbsCostGetAdjointTerms(MbsCost cost, PetscBool *density, PetscBool *step_point)
{
  PetscFunctionBeginUser;
  *density    = (PetscBool) !!cost->ops.density;
  *step_point = (PetscBool) !!cost->ops.step_point;
  PetscFunctionReturn(0);
}

/*
  MbsCostGetUnusable - Why the last signal was not usable (MbsCostSignalUsable()); empty: it was. Not collective.
*/
PetscErrorCode MbsCostGetUnusable(MbsCost cost, const char **why)
{
  PetscFunctionBeginUser;
  *why = cost->unusable;
  PetscFunctionReturn(0);
}

/*@C
  MbsCostEvaluate - The discrete cost J of a simulated signal; afterwards MbsCostDensity() gives its adjoint density. Not collective.
@*/
PetscErrorCode MbsCostEvaluate(MbsCost cost, const MbsSignal *signal, PetscReal *J)
{
  PetscFunctionBeginUser;
  PetscCheck(cost->ops.evaluate, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cost %s compares no simulated signal (MbsCostGradient())", cost->type);
  *J = 0;
  for (PetscInt c = 0; c < cost->npart; c++) {
    MbsSignal view;
    PetscReal Jc;

    PetscCall(MbsCostPartSignal_Private(cost->part[c], signal, &view));
    PetscCall(cost->ops.evaluate(cost->part[c], &view, &Jc));
    *J += cost->weight[c] * Jc;
  }
  /* the simulated output is finite here (a failed solve does not get this far): the measurement overflows the cost */
  PetscCheck(!PetscIsInfOrNanReal(*J), PETSC_COMM_SELF, PETSC_ERR_FP, "Cost %s of model %s against measurement file '%s' is %g: the measured values overflow it (amplitudes of 1e154 and more square to infinity); check the file's values and units",
             cost->type, cost->model->type, cost->measurement, (double)*J);
  PetscFunctionReturn(0);
}

/*@C
  MbsCostSignalUsable - Whether MbsCostEvaluate() can use a signal whose integration succeeded: not where an adaptive
  step in a spectrum's window is too long for one of its frequencies (an alias), which depends on the parameters and
  counts as a failed solve there; the cost keeps the reason for the message of a command that stops on it. Not
  collective.
@*/
PetscErrorCode MbsCostSignalUsable(MbsCost cost, const MbsSignal *signal, PetscBool *usable)
{
  PetscFunctionBeginUser;
  cost->unusable[0] = 0;
  for (PetscInt c = 0; c < cost->npart && cost->ops.usable && !cost->unusable[0]; c++) {
    MbsSignal view;

    PetscCall(MbsCostPartSignal_Private(cost->part[c], signal, &view));
    PetscCall(cost->ops.usable(cost->part[c], &view, cost->unusable, sizeof(cost->unusable)));
  }
  *usable = (PetscBool)!cost->unusable[0];
  if (!*usable) PetscCall(PetscInfo(NULL, "%s\n", cost->unusable));
  PetscFunctionReturn(0);
}

/* MbsChannelWeightFn of the density: w[c] = w_c r'_c(t, y_c) of the cost's parts at the time cost->density_t */
static PetscErrorCode MbsCostDensityWeights_Private(void *ctx, PetscInt npart, const PetscReal y[], PetscReal w[])
{
  MbsCost cost = (MbsCost)ctx;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < npart; c++) {
    PetscCall(cost->ops.density(cost->part[c], cost->density_t, y[c], &w[c]));
    w[c] *= cost->weight[c];
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsCostDensity - The adjoint density in the state, r(t, U) = sum_c w_c r'_c(t, y_c) y_c(U), for the signal of the last
  MbsCostEvaluate(), and, each when not NULL, dr/dU = sum_c w_c r'_c dy_c/dU (length n) and dr/dp = sum_c w_c r'_c
  dy_c/dp (length np: the part from channels that depend on the parameters directly, an accelerometer), r'_c frozen:
  dJ/dU_n = c_n dr/dU(t_n, U_n). All from one evaluation of the model's channels; 0 for a cost on step points
  (MbsCostStepPoint()). Not collective.
@*/
PetscErrorCode MbsCostDensity(MbsCost cost, PetscReal t, const PetscReal u[], PetscReal *r, PetscReal drdu[], PetscReal drdp[])
{
  PetscFunctionBeginUser;
  if (drdu) PetscCall(PetscArrayzero(drdu, cost->model->n));
  if (drdp) PetscCall(PetscArrayzero(drdp, cost->model->np));
  if (r) *r = 0;
  if (!cost->ops.density) PetscFunctionReturn(0);
  cost->density_t = t;
  PetscCall(MbsModelChannelsWeighted(cost->model, cost->npart, cost->part_channel, t, u, MbsCostDensityWeights_Private, cost, cost->part_y, cost->part_w, drdu, drdp));
  for (PetscInt c = 0; c < cost->npart && r; c++) *r += cost->part_w[c] * cost->part_y[c];
  PetscFunctionReturn(0);
}

/* part_w[c] = w_c dJ_c/dy_c,n at step point n of the signal of the last MbsCostEvaluate(); whether one is not zero */
static PetscErrorCode MbsCostStepPointWeights_Private(MbsCost cost, PetscInt n, PetscReal t, PetscBool *any)
{
  PetscFunctionBeginUser;
  *any = PETSC_FALSE;
  for (PetscInt c = 0; c < cost->npart; c++) {
    PetscCall(cost->ops.step_point(cost->part[c], n, t, &cost->part_w[c]));
    cost->part_w[c] *= cost->weight[c];
    if (cost->part_w[c] != 0) *any = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* sum_c part_w[c] dy_c/dU into dJdu and dy_c/dp into dJdp (each may be NULL) at step point n, if any weight is not
   zero (a cost on samples weighs most steps by zero) */
static PetscErrorCode MbsCostStepPoint_Private(MbsCost cost, PetscInt n, PetscReal t, const PetscReal u[], PetscReal dJdu[], PetscReal dJdp[])
{
  PetscBool any;

  PetscFunctionBeginUser;
  if (!cost->ops.step_point) PetscFunctionReturn(0);
  PetscCall(MbsCostStepPointWeights_Private(cost, n, t, &any));
  if (any) PetscCall(MbsModelChannelsWeighted(cost->model, cost->npart, cost->part_channel, t, u, NULL, NULL, NULL, cost->part_w, dJdu, dJdp));
  PetscFunctionReturn(0);
}

/*
  MbsCostStepPointP - dJ/dp = sum_c w_c dJ_c/dy_c,n dy_c/dp (length np) at step point n of the signal of the last
  MbsCostEvaluate(), from channels that depend on the parameters directly; zero for an integral cost. Not collective.
*/
PetscErrorCode MbsCostStepPointP(MbsCost cost, PetscInt n, PetscReal t, const PetscReal u[], PetscReal dJdp[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(dJdp, cost->model->np));
  PetscCall(MbsCostStepPoint_Private(cost, n, t, u, NULL, dJdp));
  PetscFunctionReturn(0);
}

/*
  MbsCostStepPoint - Adds dJ/dU_n = sum_c w_c dJ_c/dy_c,n dy_c/dU at step point n (time t_n, state u) of the signal of
  the last MbsCostEvaluate() to dJdu, beyond what the density gives; nothing for an integral cost. Not collective.
*/
PetscErrorCode MbsCostStepPoint(MbsCost cost, PetscInt n, PetscReal t, const PetscReal u[], PetscReal dJdu[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsCostStepPoint_Private(cost, n, t, u, dJdu, NULL));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostRecord - Keeps the model's curve of a signal (0: initial, 1: identified) for the result file; a cost that
  simulates nothing (MbsCostSimulates()) takes signal NULL and computes its curve at the model's parameters. Not
  collective.
@*/
PetscErrorCode MbsCostRecord(MbsCost cost, const MbsSignal *signal, PetscInt slot)
{
  PetscFunctionBeginUser;
  PetscCheck(slot >= 0 && slot < MBS_COST_SLOTS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cost record slot %" PetscInt_FMT " out of range [0, %d)", slot, MBS_COST_SLOTS);
  for (PetscInt c = 0; c < cost->npart; c++) {
    MbsSignal view;

    if (signal) PetscCall(MbsCostPartSignal_Private(cost->part[c], signal, &view));
    PetscCall(cost->ops.record(cost->part[c], signal ? &view : NULL, slot));
  }
  PetscFunctionReturn(0);
}

/* A channel's curves, below the writer's base, and the weight w_c it enters J with */
static PetscErrorCode MbsCostWritePart_Private(MbsCost part, MbsH5Writer *writer, PetscReal weight)
{
  PetscInt one = 1;

  PetscFunctionBeginUser;
  PetscCall(part->ops.write(part, writer));
  PetscCall(MbsH5WriteReals(writer, "/weight", 1, &one, &weight, "1/J"));
  PetscFunctionReturn(0);
}

/*
  MbsCostResiduals - J of the last MbsCostEvaluate() as sum_i w_i r_i^2, and the map from the measured values to the
  residuals (costimpl.h): the channels' residuals one after the other, each weight times its channel's w_c, the
  measured values of channel c numbered after those of the channels before it, channel[i] the channel (0 ..
  MbsCostGetNumChannels() - 1) of residual i. Call with r NULL for the sizes m and ndata, then with arrays of m (w, r,
  channel) and 2 m (data, dr_dd) entries. Not collective.
*/
PetscErrorCode MbsCostResiduals(MbsCost cost, const MbsSignal *signal, PetscInt *m, PetscInt *ndata, PetscReal r[], PetscReal w[], PetscInt data[], PetscReal dr_dd[], PetscInt channel[])
{
  PetscFunctionBeginUser;
  PetscCheck(cost->ops.residuals, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cost %s does not provide its residuals, which the confidence of a result (run identify with -confidence false) and the least-squares methods (-tao_type mbslm, brgn: use another) need",
             cost->type);
  *m = *ndata = 0;
  for (PetscInt c = 0; c < cost->npart; c++) {
    MbsSignal view;
    PetscInt  mc, nc;

    PetscCall(MbsCostPartSignal_Private(cost->part[c], signal, &view));
    PetscCall(cost->ops.residuals(cost->part[c], &view, &mc, &nc, r ? r + *m : NULL, r ? w + *m : NULL, r ? data + 2 * *m : NULL, r ? dr_dd + 2 * *m : NULL));
    for (PetscInt i = *m; r && i < *m + mc; i++) {
      w[i] *= cost->weight[c];
      data[2 * i] += *ndata;
      data[2 * i + 1] += *ndata;
      channel[i] = c;
    }
    *m += mc;
    *ndata += nc;
  }
  PetscFunctionReturn(0);
}

/*
  MbsCostResidualsTangent - After MbsCostResiduals() on the same signal: the derivatives of its residuals (in the same
  order, unweighted) along ndir tangent signals, dr[i ndir + k] the derivative of residual i along tangent[k]. A tangent
  signal is the derivative of the signal along a direction in the parameters (output and channels at the same step
  points and quadrature nodes), e.g. from forward sensitivities: the result is row i of the Jacobian dr/dp times the
  direction. Not collective.
*/
PetscErrorCode MbsCostResidualsTangent(MbsCost cost, const MbsSignal *signal, PetscInt ndir, const MbsSignal tangent[], PetscReal dr[])
{
  MbsSignal *views;
  PetscInt   m = 0;

  PetscFunctionBeginUser;
  PetscCheck(cost->ops.residuals_tangent, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cost %s gives no Jacobian of its residuals, which a Gauss-Newton method needs: use another -tao_type", cost->type);
  PetscCall(PetscMalloc1(ndir, &views));
  for (PetscInt c = 0; c < cost->npart; c++) {
    MbsSignal view;
    PetscInt  mc, nc;

    PetscCall(MbsCostPartSignal_Private(cost->part[c], signal, &view));
    for (PetscInt k = 0; k < ndir; k++) MbsCallUndo(MbsCostPartSignal_Private(cost->part[c], &tangent[k], &views[k]), PetscFree(views));
    MbsCallUndo(cost->ops.residuals(cost->part[c], &view, &mc, &nc, NULL, NULL, NULL, NULL), PetscFree(views));
    MbsCallUndo(cost->ops.residuals_tangent(cost->part[c], &view, ndir, views, dr + m * ndir), PetscFree(views));
    m += mc;
  }
  PetscCall(PetscFree(views));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostGetNumChannels - The number of measured channels the cost compares (1 for a one-channel file). Not collective.
@*/
PetscErrorCode MbsCostGetNumChannels(MbsCost cost, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = cost->npart;
  PetscFunctionReturn(0);
}

/*@C
  MbsCostGetChannel - Name ("" for the root of a one-channel file) and unit of the cost's channel c. Not collective.
@*/
PetscErrorCode MbsCostGetChannel(MbsCost cost, PetscInt c, const char **name, const char **unit)
{
  PetscFunctionBeginUser;
  PetscCheck(c >= 0 && c < cost->npart, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The cost compares %" PetscInt_FMT " channels, not channel %" PetscInt_FMT, cost->npart, c);
  *name = cost->part[c]->channel_name;
  *unit = cost->part[c]->unit;
  PetscFunctionReturn(0);
}

/* Every part's measured and recorded curves: at the root for a one-channel file, else below /channels/NAME, with the
   channel's weight */
PetscErrorCode MbsCostWrite(MbsCost cost, MbsH5Writer *writer)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < cost->npart; c++) {
    MbsCost part = cost->part[c];
    char    base[sizeof(writer->base)];

    if (part->channel < 0) {
      PetscCall(cost->ops.write(part, writer));
      continue;
    }
    PetscCall(PetscStrncpy(base, writer->base, sizeof(base)));
    PetscCall(PetscSNPrintf(writer->base, sizeof(writer->base), "%s/channels/%s", base, part->channel_name));
    MbsCallCleanup(MbsCostWritePart_Private(part, writer, cost->weight[c]), PetscStrncpy(writer->base, base, sizeof(writer->base)));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostDestroy(MbsCost *cost)
{
  PetscFunctionBeginUser;
  if (!*cost) PetscFunctionReturn(0);
  for (PetscInt c = 0; c < (*cost)->npart; c++) PetscCall(MbsCostDestroy(&(*cost)->part[c]));
  PetscCall(PetscFree2((*cost)->part, (*cost)->weight));
  PetscCall(PetscFree3((*cost)->part_channel, (*cost)->part_y, (*cost)->part_w));
  if ((*cost)->ops.destroy) PetscCall((*cost)->ops.destroy(*cost));
  PetscCall(PetscFree(*cost));
  PetscFunctionReturn(0);
}
