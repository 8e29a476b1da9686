/*
  The identification problem shared by gradcheck, identify and scan: experiments (experiment.c), each with
  its model, measurement and cost, and the parameters to identify (-identify, default: every identifiable
  parameter of the model), which all experiments share.

  Each rank computes the experiments dealt to it. The per-experiment costs and gradients are gathered (every
  entry has exactly one non-zero contribution, so the gather is exact) and summed in experiment order, so J,
  the gradient, and every TAO iterate built on them, are bitwise the same on any number of ranks.
*/
#include "identification/identificationimpl.h"
#include <petsctime.h>

/*
  The measurement must be of the model's output: the same units always (a file in m compared with an output in rad
  gives a wrong identification with success), and the same model and output where the file names them.
*/
static PetscErrorCode MbsMeasurementCheckModel_Private(const MbsExperiment *exp, PetscBool allow_other_model)
{
  const MbsMeasurement *meas  = &exp->meas;
  MbsModel              model = exp->model;
  PetscBool             same;

  PetscFunctionBeginUser;
  if (!meas->nchannel) { /* named channels: the cost checks each against the model's channel of that name */
    PetscCall(PetscStrcmp(meas->units, model->output_unit, &same));
    PetscCheck(same, model->comm, PETSC_ERR_ARG_INCOMP, "Measurement file '%s' is in units '%s', but the output %s of model %s is in '%s'", exp->measurement, meas->units, model->output_name, model->type, model->output_unit);
  }
  if (meas->model[0] && !allow_other_model) {
    PetscCall(PetscStrcmp(meas->model, model->type, &same));
    PetscCheck(same, model->comm, PETSC_ERR_ARG_INCOMP, "Measurement file '%s' was made for model '%s', not %s (-measurement_allow_model_mismatch to use it anyway)", exp->measurement, meas->model, model->type);
  }
  if (meas->output[0] && !meas->nchannel) {
    PetscCall(PetscStrcmp(meas->output, model->output_name, &same));
    PetscCheck(same, model->comm, PETSC_ERR_ARG_INCOMP, "Measurement file '%s' measures output '%s', but model %s's output is %s", exp->measurement, meas->output, model->type, model->output_name);
  }
  PetscFunctionReturn(0);
}

/* Creates the experiment's model, cost and measurement; its options are the default database */
static PetscErrorCode MbsExperimentSetUpWithin_Private(MbsObjective obj, MbsExperiment *exp, PetscInt nlist, char *list[], PetscBool help)
{
  PetscReal dt;
  PetscBool set, allow_other_model = PETSC_FALSE;
  PetscInt  nsample;

  PetscFunctionBeginUser;
  PetscCall(MbsModelCreate(obj->comm, &exp->model));
  PetscCall(MbsModelSetFromOptions(exp->model));
  MbsOptionsBegin(obj->comm, NULL, "Measurement", "MbsObjective");
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-measurement", "Measurement file (HDF5, measurement schema) the cost compares with (required)", "MbsObjectiveCreate", exp->measurement, sizeof(exp->measurement), NULL));
  PetscCall(PetscOptionsBool("-measurement_allow_model_mismatch", "Accept a measurement whose 'model' attribute names another model (never other units)", "MbsObjectiveCreate", allow_other_model, &allow_other_model, NULL));
  MbsOptionsEnd();
  PetscCall(MbsCostCreate(exp->model, &exp->cost));
  PetscCall(MbsCostSetFromOptions(exp->cost));
  PetscCall(PetscMalloc1(nlist, &exp->id));
  for (PetscInt k = 0; k < nlist; k++) {
    PetscCall(MbsModelGetParameterIndex(exp->model, list[k], &exp->id[k]));
    PetscCheck(exp->model->param_info[exp->id[k]].identifiable, obj->comm, PETSC_ERR_ARG_WRONG, "Parameter %s of model %s is not identifiable (-identify): the model has no derivative for it", list[k], exp->model->type);
    for (PetscInt l = 0; l < k; l++) PetscCheck(exp->id[l] != exp->id[k], obj->comm, PETSC_ERR_ARG_WRONG, "Parameter %s appears twice in -identify", list[k]);
  }
  dt = exp->model->dt;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ts_dt", &dt, &set));
  exp->steps = (exp->model->tf - exp->model->t0) / dt;
  if (!help) {
    PetscCheck(exp->measurement[0], obj->comm, PETSC_ERR_ARG_WRONG, "No measurement: give -measurement <file.h5> for experiment %s (e.g. one written by mbsid simulate -save_measurement)", exp->name);
    PetscCall(MbsMeasurementRead(obj->comm, exp->measurement, &exp->meas));
    PetscCall(MbsMeasurementCheckModel_Private(exp, allow_other_model));
    PetscCall(MbsCostSetUp(exp->cost, exp->measurement, &exp->meas));
    PetscCall(MbsModelGetSampleTimes(exp->model, &nsample, NULL, NULL));
    exp->steps = PetscMax(exp->steps, nsample + 1); /* the steps end on every sample a cost reads */
  } else if (exp == &obj->exp[0]) {
    PetscReal timeout;

    PetscCall(MbsMeasurementOptions(obj->comm, &timeout));
    PetscCall(MbsSimulateHelp(exp->model));
  }
  PetscFunctionReturn(0);
}

/* Creates the experiment's model, cost and measurement within its own options */
static PetscErrorCode MbsExperimentSetUp_Private(MbsObjective obj, MbsExperiment *exp, PetscInt nlist, char *list[], PetscBool help)
{
  PetscFunctionBeginUser;
  PetscCall(MbsExperimentOptionsPush(exp));
  MbsCallCleanup(MbsExperimentSetUpWithin_Private(obj, exp, nlist, list, help), MbsExperimentOptionsPop(exp));
  PetscFunctionReturn(0);
}

/* The identifiable parameters of the first experiment's model, comma-separated (allocated): the default of -identify;
   np, the model's number of parameters, bounds the length of -identify */
static PetscErrorCode MbsIdentifiableNames_Private(MbsModel first, char **names, PetscInt *np)
{
  size_t size = 1;

  PetscFunctionBeginUser;
  PetscCall(MbsModelSetFromOptions(first));
  for (PetscInt i = 0; i < first->np; i++) {
    size_t length;

    PetscCall(PetscStrlen(first->param_info[i].name, &length));
    size += length + 1;
  }
  PetscCall(PetscCalloc1(size, names));
  for (PetscInt i = 0; i < first->np; i++) {
    if (!first->param_info[i].identifiable) continue;
    if ((*names)[0]) PetscCall(MbsStrlcat(*names, ",", size));
    PetscCall(MbsStrlcat(*names, first->param_info[i].name, size));
  }
  *np = first->np;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIdentifiableNamesEnd_Private(MbsObjective obj, MbsModel *first)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelDestroy(first));
  PetscCall(MbsExperimentOptionsPop(&obj->exp[0]));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIdentifyListFree_Private(PetscInt n, char ***list)
{
  PetscFunctionBeginUser;
  PetscCall(MbsStringsFree(n, *list));
  PetscCall(PetscFree(*list));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsExperimentsSetUp_Private(MbsObjective obj, PetscInt nlist, char *list[], PetscBool help)
{
  PetscFunctionBeginUser;
  PetscCheck(nlist > 0, obj->comm, PETSC_ERR_ARG_WRONG, "Nothing to identify: the model has no identifiable parameter and -identify is empty");
  obj->nid = nlist;
  for (PetscInt e = 0; e < obj->nexp; e++) PetscCall(MbsExperimentSetUp_Private(obj, &obj->exp[e], nlist, list, help));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveCreate - Reads the experiments, their models, measurements and costs, and -identify from the options.
  With -help only the options are listed and *help is set (no measurement is read). Collective.
@*/
PetscErrorCode MbsObjectiveCreate(MPI_Comm comm, MbsObjective *objective, PetscBool *help)
{
  MbsObjective obj;
  MbsModel     first;
  char        *names = NULL, **list;
  PetscInt     nlist, np = 0;
  PetscBool    set;
  PetscMPIInt  size;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&obj));
  obj->comm  = comm;
  *objective = obj;
  PetscCall(PetscOptionsHasHelp(NULL, help));
  PetscCall(MbsExperimentsCreate(comm, &obj->nexp, &obj->exp));

  /* the default -identify: every identifiable parameter of the (first experiment's) model */
  PetscCall(MbsExperimentOptionsPush(&obj->exp[0]));
  PetscCall(MbsModelCreate(comm, &first));
  MbsCallCleanup(MbsIdentifiableNames_Private(first, &names, &np), MbsIdentifiableNamesEnd_Private(obj, &first));
  nlist = PetscMax(np, 64); /* a model's parameters, each once (large models have hundreds) */
  PetscCall(PetscMalloc1(nlist, &list));
  MbsOptionsBegin(comm, NULL, "Identification problem", "MbsObjective");
  PetscCall(PetscOptionsStringArray("-identify", "Parameters to identify, e.g. cf,df (default: every identifiable parameter)", "MbsObjectiveCreate", list, &nlist, &set));
  MbsOptionsEnd();
  if (!set) {
    char **defaults;
    int    ndefaults;

    PetscCall(PetscStrToArray(names, ',', &ndefaults, &defaults));
    nlist = ndefaults;
    for (PetscInt k = 0; k < nlist; k++) PetscCall(PetscStrallocpy(defaults[k], &list[k]));
    PetscCall(PetscStrToArrayDestroy(ndefaults, defaults));
  }
  PetscCall(PetscFree(names));
  MbsCallCleanup(MbsExperimentsSetUp_Private(obj, nlist, list, *help), MbsIdentifyListFree_Private(nlist, &list));
  obj->model = obj->exp[0].model;
  obj->cost  = obj->exp[0].cost;
  obj->id    = obj->exp[0].id;
  PetscCall(PetscCalloc2(obj->nexp, &obj->J_exp, obj->nexp * obj->nid, &obj->g_exp));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MbsExperimentsDistribute(obj->nexp, obj->exp, size));
  if (obj->nexp > 1 && !*help) {
    PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " experiments over %d ranks:\n", obj->nexp, size));
    for (PetscInt e = 0; e < obj->nexp; e++) PetscCall(PetscPrintf(comm, "  %-20s %8.0f steps  rank %d  %s\n", obj->exp[e].name, (double)obj->exp[e].steps, obj->exp[e].rank, obj->exp[e].measurement));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsObjectiveDestroy(MbsObjective *objective)
{
  MbsObjective obj = *objective;

  PetscFunctionBeginUser;
  if (!obj) PetscFunctionReturn(0);
  for (PetscInt e = 0; e < obj->nexp; e++) {
    MbsExperiment *exp = &obj->exp[e];

    PetscCall(MbsCostDestroy(&exp->cost));
    PetscCall(MbsMeasurementReset(&exp->meas));
    PetscCall(MbsModelDestroy(&exp->model));
    PetscCall(PetscFree(exp->id));
    PetscCall(MbsExperimentOptionsDestroy(exp));
  }
  PetscCall(PetscFree(obj->exp));
  PetscCall(PetscFree2(obj->J_exp, obj->g_exp));
  PetscCall(PetscFree(*objective));
  PetscFunctionReturn(0);
}

/*
  MbsObjectiveGetEvaluations - The evaluations of J so far. Not collective.
*/
PetscErrorCode MbsObjectiveGetEvaluations(MbsObjective obj, PetscInt *nevals)
{
  PetscFunctionBeginUser;
  *nevals = obj->nevals;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetComm - The communicator over which the experiments are dealt. Not collective.
@*/
PetscErrorCode MbsObjectiveGetComm(MbsObjective obj, MPI_Comm *comm)
{
  PetscFunctionBeginUser;
  *comm = obj->comm;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetNumParameters - The number of identified parameters. Not collective.
@*/
PetscErrorCode MbsObjectiveGetNumParameters(MbsObjective obj, PetscInt *nid)
{
  PetscFunctionBeginUser;
  *nid = obj->nid;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetModel - The model of the first experiment, which names the identified parameters (its other
  parameters may differ between experiments). Not collective.
@*/
PetscErrorCode MbsObjectiveGetModel(MbsObjective obj, MbsModel *model)
{
  PetscFunctionBeginUser;
  *model = obj->model;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetParameterInfo - Name, unit and bounds of identified parameter k. Not collective.
@*/
PetscErrorCode MbsObjectiveGetParameterInfo(MbsObjective obj, PetscInt k, const MbsParameterInfo **info)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < obj->nid, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Identified parameter %" PetscInt_FMT " of %" PetscInt_FMT, k, obj->nid);
  *info = &obj->model->param_info[obj->id[k]];
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetCost - The cost of the first experiment, whose type the commands report. Not collective.
@*/
PetscErrorCode MbsObjectiveGetCost(MbsObjective obj, MbsCost *cost)
{
  PetscFunctionBeginUser;
  *cost = obj->cost;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetExperimentName - The name of experiment e. Not collective.
@*/
PetscErrorCode MbsObjectiveGetExperimentName(MbsObjective obj, PetscInt e, const char **name)
{
  PetscFunctionBeginUser;
  PetscCheck(e >= 0 && e < obj->nexp, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Experiment %" PetscInt_FMT " of %" PetscInt_FMT, e, obj->nexp);
  *name = obj->exp[e].name;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveViewUnusable - Prints, on the rank of each experiment, why its cost could not use the signal of the last
  evaluation (MbsCostGetUnusable()); nothing for a cost that could. Not collective.
@*/
PetscErrorCode MbsObjectiveViewUnusable(MbsObjective obj)
{
  PetscMPIInt rank;
  const char *why;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  for (PetscInt e = 0; e < obj->nexp; e++) {
    if (obj->exp[e].rank != rank) continue;
    PetscCall(MbsCostGetUnusable(obj->exp[e].cost, &why));
    if (why[0]) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", why));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveEigen - Sets the identified parameters of every experiment to x and computes the modes of the first
  experiment's model, linearised there within its options. Not collective.
@*/
static PetscErrorCode MbsObjectiveEigen_Private(MbsObjective obj, const PetscReal x[], MbsEigenResult *result)
{
  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveSetValues(obj, x));
  PetscCall(MbsEigenCompute(obj->model, NULL, result));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsObjectiveEigen(MbsObjective obj, const PetscReal x[], MbsEigenResult *result)
{
  PetscFunctionBeginUser;
  PetscCall(MbsExperimentOptionsPush(&obj->exp[0]));
  MbsCallCleanup(MbsObjectiveEigen_Private(obj, x, result), MbsExperimentOptionsPop(&obj->exp[0])); /* a caller may go on after a failure */
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetValues - The current values of the identified parameters. Not collective.
@*/
PetscErrorCode MbsObjectiveGetValues(MbsObjective obj, PetscReal x[])
{
  const PetscReal *p;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetParametersRead(obj->model, &p));
  for (PetscInt k = 0; k < obj->nid; k++) x[k] = p[obj->id[k]];
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveSetValues - Sets the identified parameters of every experiment (checked against their bounds). Not collective.
@*/
PetscErrorCode MbsObjectiveSetValues(MbsObjective obj, const PetscReal x[])
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < obj->nexp; e++) {
    MbsExperiment *exp = &obj->exp[e];
    PetscReal     *p;

    PetscCall(PetscMalloc1(exp->model->np, &p));
    PetscCall(MbsModelGetParameters(exp->model, p));
    for (PetscInt k = 0; k < obj->nid; k++) p[exp->id[k]] = x[k];
    PetscCall(MbsModelSetParameters(exp->model, p));
    PetscCall(PetscFree(p));
  }
  PetscFunctionReturn(0);
}

/* J_e and its gradient of one experiment (and with G_exp its Gauss-Newton matrix), within its options */
static PetscErrorCode MbsExperimentEvaluate_Private(MbsObjective obj, PetscInt e, PetscBool gradient, PetscReal G_exp[], PetscBool *ok)
{
  MbsExperiment *exp = &obj->exp[e];
  PetscLogDouble start, end;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&start));
  PetscCall(MbsExperimentOptionsPush(exp));
  if (G_exp) {
    PetscCall(PetscArrayzero(G_exp + e * obj->nid * obj->nid, obj->nid * obj->nid));
    PetscCall(MbsCostGradient(exp->cost, obj->nid, exp->id, &obj->J_exp[e], &obj->g_exp[e * obj->nid], G_exp + e * obj->nid * obj->nid));
    *ok = PETSC_TRUE;
  } else PetscCall(MbsGradient(exp->model, exp->cost, obj->nid, exp->id, &obj->J_exp[e], gradient ? &obj->g_exp[e * obj->nid] : NULL, ok));
  /* the rank that met it says why the start was refused (the failed step's line on rank 0 does not know) */
  if (!*ok && MbsModelStartRefusal(exp->model)) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s: the start was refused at trial parameters: %s\n", exp->name, MbsModelStartRefusal(exp->model)));
  PetscCall(MbsExperimentOptionsPop(exp));
  PetscCall(PetscTime(&end));
  exp->busy += end - start;
  PetscFunctionReturn(0);
}

/* J, its gradient and (G_exp not NULL) its Gauss-Newton matrix G as sums over the experiments in their order */
static void MbsObjectiveSum_Private(MbsObjective obj, PetscReal *J, PetscReal grad[], const PetscReal G_exp[], PetscReal G[])
{
  PetscInt nid2 = obj->nid * obj->nid;

  *J = 0;
  for (PetscInt e = 0; e < obj->nexp; e++) *J += obj->J_exp[e];
  for (PetscInt k = 0; grad && k < obj->nid; k++) {
    grad[k] = 0;
    for (PetscInt e = 0; e < obj->nexp; e++) grad[k] += obj->g_exp[e * obj->nid + k];
  }
  for (PetscInt k = 0; G_exp && k < nid2; k++) {
    G[k] = 0;
    for (PetscInt e = 0; e < obj->nexp; e++) G[k] += G_exp[e * nid2 + k];
  }
}

/*@C
  MbsObjectiveSetIdleWork - Work for a rank that computes no experiment, done in pieces while it waits for the others'
  evaluations (the cost scan of a single experiment, say): work(ctx, &more) does one piece and says whether more is
  left. The parameters are set back to the evaluation's after each piece. Not collective.
@*/
PetscErrorCode MbsObjectiveSetIdleWork(MbsObjective obj, PetscErrorCode (*work)(void *, PetscBool *), void *ctx)
{
  PetscFunctionBeginUser;
  obj->idle_work = work;
  obj->idle_ctx  = ctx;
  PetscFunctionReturn(0);
}

/* Sums local (n values) over the ranks into global; a rank without an experiment does its idle work until the sum is in */
static PetscErrorCode MbsObjectiveReduce_Private(MbsObjective obj, const PetscReal x[], PetscBool idle, PetscInt n, const PetscReal local[], PetscReal global[])
{
  MPI_Request request;
  int         reduced = 0;
  PetscBool   more    = idle;

  PetscFunctionBeginUser;
  /* one non-zero contribution per entry, so the sum is exact whatever the reduction order */
  PetscCallMPI(MPI_Iallreduce(local, global, n, MPIU_REAL, MPIU_SUM, obj->comm, &request));
  while (more) {
    PetscCallMPI(MPI_Test(&request, &reduced, MPI_STATUS_IGNORE));
    if (reduced) break;
    PetscCall(obj->idle_work(obj->idle_ctx, &more));
  }
  if (!reduced) PetscCallMPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  if (idle) PetscCall(MbsObjectiveSetValues(obj, x));
  PetscFunctionReturn(0);
}

/* MbsObjectiveEvaluate(), with G_exp (nexp x nid^2, work) also the Gauss-Newton matrix G */
static PetscErrorCode MbsObjectiveEvaluate_Private(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[], PetscReal G_exp[], PetscReal G[], PetscBool *ok)
{
  PetscMPIInt rank;
  PetscInt    nG = G_exp ? obj->nexp * obj->nid * obj->nid : 0, nvalues = obj->nexp * (1 + obj->nid) + nG, nmine = 0;
  PetscReal  *local, *global, failures                                                                           = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  PetscCall(MbsObjectiveSetValues(obj, x));
  PetscCall(PetscArrayzero(obj->J_exp, obj->nexp));
  PetscCall(PetscArrayzero(obj->g_exp, obj->nexp * obj->nid));
  if (G_exp) PetscCall(PetscArrayzero(G_exp, nG));
  for (PetscInt e = 0; e < obj->nexp; e++) {
    PetscBool ok_e;

    if (obj->exp[e].rank != rank) continue;
    nmine++;
    PetscCall(MbsExperimentEvaluate_Private(obj, e, (PetscBool)(grad != NULL), G_exp, &ok_e));
    if (!ok_e) { /* J_e and its gradient count as 0, so that the sum stays finite; the count of failures says it failed */
      failures += 1;
      obj->J_exp[e] = 0;
      PetscCall(PetscArrayzero(obj->g_exp + e * obj->nid, obj->nid));
    }
  }
  PetscCall(PetscMalloc2(nvalues + 1, &local, nvalues + 1, &global));
  PetscCall(PetscArraycpy(local, obj->J_exp, obj->nexp));
  PetscCall(PetscArraycpy(local + obj->nexp, obj->g_exp, obj->nexp * obj->nid));
  if (G_exp) PetscCall(PetscArraycpy(local + obj->nexp * (1 + obj->nid), G_exp, nG));
  local[nvalues] = failures;
  MbsCallUndo(MbsObjectiveReduce_Private(obj, x, (PetscBool)(!nmine && obj->idle_work), nvalues + 1, local, global), PetscFree2(local, global));
  *ok = (PetscBool)(global[nvalues] == 0);
  PetscCall(PetscArraycpy(obj->J_exp, global, obj->nexp));
  PetscCall(PetscArraycpy(obj->g_exp, global + obj->nexp, obj->nexp * obj->nid));
  if (G_exp) PetscCall(PetscArraycpy(G_exp, global + obj->nexp * (1 + obj->nid), nG));
  PetscCall(PetscFree2(local, global));
  MbsObjectiveSum_Private(obj, J, grad, G_exp, G);
  if (!*ok) *J = PETSC_INFINITY;
  obj->nevals++;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveEvaluate - J and (grad not NULL) dJ/dx at the identified parameter values x, every rank computing its
  experiments. A failed forward integration sets *ok = PETSC_FALSE instead of raising an error. Collective.
@*/
PetscErrorCode MbsObjectiveEvaluate(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[], PetscBool *ok)
{
  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveEvaluate_Private(obj, x, J, grad, NULL, NULL, ok));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveEvaluateGaussNewton - J, dJ/dx and the Gauss-Newton matrix G (nid x nid, row-major) at x, summed over
  the experiments in their order as MbsObjectiveEvaluate() sums J; only for costs that simulate nothing (frf), which
  give G exactly (MbsCostGradient()). Collective.
@*/
PetscErrorCode MbsObjectiveEvaluateGaussNewton(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[], PetscReal G[], PetscBool *ok)
{
  PetscReal *G_exp;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(obj->nexp * obj->nid * obj->nid, &G_exp));
  MbsCallCleanup(MbsObjectiveEvaluate_Private(obj, x, J, grad, G_exp, G, ok), PetscFree(G_exp));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveEvaluateLocal - Like MbsObjectiveEvaluate(), but the calling rank computes every experiment itself.
  Not collective.
@*/
PetscErrorCode MbsObjectiveEvaluateLocal(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[], PetscBool *ok)
{
  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveSetValues(obj, x));
  *ok = PETSC_TRUE;
  for (PetscInt e = 0; e < obj->nexp && *ok; e++) PetscCall(MbsExperimentEvaluate_Private(obj, e, (PetscBool)(grad != NULL), NULL, ok));
  MbsObjectiveSum_Private(obj, J, grad, NULL, NULL);
  if (!*ok) *J = PETSC_INFINITY;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveFreezeSteps - With PETSC_TRUE, the next evaluation of every experiment records its step points and the
  evaluations after it take exactly those steps, whatever adaptivity would choose: J as a function of the parameters
  on fixed steps, the function whose derivative the adjoint computes (gradient checks). PETSC_FALSE lets the
  steps adapt again. Not collective.
@*/
PetscErrorCode MbsObjectiveFreezeSteps(MbsObjective obj, PetscBool freeze)
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < obj->nexp; e++) { PetscCall(MbsModelFreezeSteps(obj->exp[e].model, freeze)); }
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveRecord - Every rank simulates its experiments at the current parameters and keeps their curves in a
  slot (0 initial, 1 identified). With nresidual (not NULL), the number of residuals of every experiment's cost at
  these parameters, which the least-squares methods need before their first evaluation. A failed integration is an
  error with the integrator's message. Collective.
@*/
PetscErrorCode MbsObjectiveRecord(MbsObjective obj, PetscInt slot, PetscInt *nresidual)
{
  PetscMPIInt rank;
  PetscInt    m = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  for (PetscInt e = 0; e < obj->nexp; e++) {
    MbsExperiment *exp = &obj->exp[e];
    MbsSignal      signal;
    PetscBool      simulates;
    PetscInt       m_exp, ndata;

    if (exp->rank != rank) continue;
    PetscCall(MbsExperimentOptionsPush(exp));
    PetscCall(MbsCostSimulates(exp->cost, &simulates));
    if (simulates) {
      PetscCall(MbsSimulate(exp->model, NULL, NULL, NULL, &signal));
      MbsCallUndo(MbsCostRecord(exp->cost, &signal, slot), MbsSignalDestroy(&signal));
      m_exp = 0;
      if (nresidual) MbsCallUndo(MbsCostResiduals(exp->cost, &signal, &m_exp, &ndata, NULL, NULL, NULL, NULL, NULL), MbsSignalDestroy(&signal));
      m += m_exp;
      PetscCall(MbsSignalDestroy(&signal));
    } else PetscCall(MbsCostRecord(exp->cost, NULL, slot));
    PetscCall(MbsExperimentOptionsPop(exp));
  }
  if (nresidual) PetscCallMPI(MPI_Allreduce(&m, nresidual, 1, MPIU_INT, MPI_SUM, obj->comm));
  else PetscCallMPI(MPI_Barrier(obj->comm));
  PetscFunctionReturn(0);
}

/* The groups of the experiments this rank computed: at the root for a single experiment, else /experiments/<name> */
static PetscErrorCode MbsObjectiveWriteExperiments_Private(MbsObjective obj, MbsH5Writer *writer, PetscMPIInt rank)
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < obj->nexp; e++) {
    MbsExperiment *exp = &obj->exp[e];
    char           value[64];

    if (exp->rank != rank) continue;
    if (obj->nexp > 1) PetscCall(PetscSNPrintf(writer->base, sizeof(writer->base), "/experiments/%s", exp->name));
    PetscCall(MbsCostWrite(exp->cost, writer));
    PetscCall(MbsH5WriteReals(writer, "/J", 1, (PetscInt[]){1}, &obj->J_exp[e], "cost"));
    PetscCall(PetscSNPrintf(value, sizeof(value), "%d", exp->rank));
    PetscCall(MbsH5WriteAttribute(writer, "/J", "rank", value));
    PetscCall(MbsH5WriteAttribute(writer, "/J", "measurement", exp->measurement));
    PetscCall(MbsH5WriteReals(writer, "/busy_time", 1, (PetscInt[]){1}, &exp->busy, "s"));
    writer->base[0] = 0;
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveWriteFile - The result file: /parameters, whatever extra writes (on rank 0, may be NULL),
  provenance and per-rank timing; then every rank in turn adds the experiments it computed. Written to a temporary
  name and renamed when complete. Collective.
@*/
PetscErrorCode MbsObjectiveWriteFile(MbsObjective obj, const char path[], const PetscReal initial[], const PetscReal final[], MbsObjectiveWriteFn extra, void *ctx)
{
  MbsH5Writer    writer;
  PetscMPIInt    rank, size;
  PetscLogDouble busy = 0;
  PetscReal     *busy_all;
  const char   **names, **units, *cost_type;
  PetscReal     *lower, *upper;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  PetscCallMPI(MPI_Comm_size(obj->comm, &size));
  for (PetscInt e = 0; e < obj->nexp; e++)
    if (obj->exp[e].rank == rank) busy += obj->exp[e].busy;
  PetscCall(PetscMalloc1(size, &busy_all));
  {
    PetscReal mine = busy;

    PetscCallMPI(MPI_Gather(&mine, 1, MPIU_REAL, busy_all, 1, MPIU_REAL, 0, obj->comm));
  }
  PetscCall(PetscMemzero(&writer, sizeof(writer)));
  if (rank == 0) {
    PetscCall(PetscMalloc4(obj->nid, &names, obj->nid, &units, obj->nid, &lower, obj->nid, &upper));
    for (PetscInt k = 0; k < obj->nid; k++) {
      const MbsParameterInfo *info = &obj->model->param_info[obj->id[k]];

      names[k] = info->name;
      units[k] = info->unit;
      lower[k] = info->lower;
      upper[k] = info->upper;
    }
    PetscCall(MbsH5WriterOpen(path, &writer));
    PetscCall(MbsH5WriteStrings(&writer, "/parameters/name", obj->nid, names));
    PetscCall(MbsH5WriteStrings(&writer, "/parameters/unit", obj->nid, units));
    PetscCall(MbsH5WriteReals(&writer, "/parameters/lower", 1, &obj->nid, lower, "see /parameters/unit"));
    PetscCall(MbsH5WriteReals(&writer, "/parameters/upper", 1, &obj->nid, upper, "see /parameters/unit"));
    PetscCall(MbsH5WriteReals(&writer, "/parameters/initial", 1, &obj->nid, initial, "see /parameters/unit"));
    if (final) PetscCall(MbsH5WriteReals(&writer, "/parameters/final", 1, &obj->nid, final, "see /parameters/unit"));
    PetscCall(PetscFree4(names, units, lower, upper));
    if (extra) PetscCall(extra(obj, &writer, ctx));
    PetscCall(MbsH5WriteReals(&writer, "/timing/rank_busy_time", 1, (PetscInt[]){size}, busy_all, "s"));
    PetscCall(MbsCostGetType(obj->cost, &cost_type));
    PetscCall(MbsModelWriteIdentity(obj->model, &writer, "/"));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "cost", cost_type));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "measurement", obj->exp[0].measurement));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "output", obj->model->output_name));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "units", obj->model->output_unit));
    PetscCall(MbsH5WriteProvenance(&writer, obj->comm));
    PetscCall(MbsObjectiveWriteExperiments_Private(obj, &writer, 0));
    PetscCall(MbsH5WriterSuspend(&writer));
  }
  PetscCall(PetscFree(busy_all));
  PetscCallMPI(MPI_Bcast(&writer, sizeof(writer), MPI_BYTE, 0, obj->comm));
  for (PetscMPIInt r = 1; r < size; r++) { /* one rank at a time adds its experiments */
    if (rank == r) {
      PetscCall(MbsH5WriterResume(&writer));
      PetscCall(MbsObjectiveWriteExperiments_Private(obj, &writer, r));
      PetscCall(MbsH5WriterSuspend(&writer));
    }
    PetscCallMPI(MPI_Barrier(obj->comm));
  }
  if (rank == 0) {
    PetscCall(MbsH5WriterResume(&writer));
    PetscCall(MbsH5WriterClose(&writer));
  }
  PetscCallMPI(MPI_Barrier(obj->comm));
  PetscFunctionReturn(0);
}
