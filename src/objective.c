/*
  The identification problem shared by gradcheck, identify and scan: a model, a measurement, a cost,
  and the parameters to identify (-identify, default: every identifiable parameter of the model).
  MbsObjectiveEvaluate() gives J and its adjoint gradient for values of the identified parameters.

  Every rank computes the one experiment (same data, same result), so all ranks hold the same J and
  gradient and an error is seen by all ranks alike.
*/
#include "mbsidimpl.h"

/*@C
  MbsObjectiveCreate - Reads the model, the measurement (-measurement), the cost and -identify from the options.
  With -help only the options are listed and *help is set (the measurement is not read). Collective.
@*/
PetscErrorCode MbsObjectiveCreate(MPI_Comm comm, MbsObjective *objective, PetscBool *help)
{
  MbsObjective obj;
  char         names[1024] = "", *list[64];
  PetscInt     nlist       = PETSC_STATIC_ARRAY_LENGTH(list);
  PetscBool    set;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&obj));
  obj->comm = comm;
  PetscCall(MbsModelCreate(comm, &obj->model));
  PetscCall(MbsModelSetFromOptions(obj->model));
  for (PetscInt i = 0; i < obj->model->np; i++) {
    if (!obj->model->param_info[i].identifiable) continue;
    if (names[0]) PetscCall(PetscStrlcat(names, ",", sizeof(names)));
    PetscCall(PetscStrlcat(names, obj->model->param_info[i].name, sizeof(names)));
  }
  PetscOptionsBegin(comm, NULL, "Identification problem", "MbsObjective");
  PetscCall(PetscOptionsString("-measurement", "Measurement file (HDF5, measurement schema) the cost compares with (required)", "MbsObjectiveCreate", obj->measurement, obj->measurement, sizeof(obj->measurement), NULL));
  PetscCall(PetscOptionsStringArray("-identify", "Parameters to identify, e.g. cf,df (default: every identifiable parameter)", "MbsObjectiveCreate", list, &nlist, &set));
  PetscOptionsEnd();
  PetscCall(MbsCostCreate(obj->model, &obj->cost));
  PetscCall(MbsCostSetFromOptions(obj->cost));
  *objective = obj;

  if (!set) {
    char **defaults;
    int    ndefaults;

    PetscCall(PetscStrToArray(names, ',', &ndefaults, &defaults));
    nlist = ndefaults;
    for (PetscInt k = 0; k < nlist; k++) PetscCall(PetscStrallocpy(defaults[k], &list[k]));
    PetscCall(PetscStrToArrayDestroy(ndefaults, defaults));
  }
  PetscCall(PetscMalloc1(nlist, &obj->id));
  obj->nid = nlist;
  for (PetscInt k = 0; k < nlist; k++) {
    PetscCall(MbsModelGetParameterIndex(obj->model, list[k], &obj->id[k]));
    PetscCheck(obj->model->param_info[obj->id[k]].identifiable, comm, PETSC_ERR_ARG_WRONG, "Parameter %s of model %s is not identifiable (-identify): the model has no derivative for it", list[k], obj->model->type);
    for (PetscInt l = 0; l < k; l++) PetscCheck(obj->id[l] != obj->id[k], comm, PETSC_ERR_ARG_WRONG, "Parameter %s appears twice in -identify", list[k]);
    PetscCall(PetscFree(list[k]));
  }
  PetscCheck(obj->nid > 0, comm, PETSC_ERR_ARG_WRONG, "Nothing to identify: model %s has no identifiable parameter and -identify is empty", obj->model->type);

  PetscCall(PetscOptionsHasHelp(NULL, help));
  if (*help) PetscFunctionReturn(0);
  PetscCheck(obj->measurement[0], comm, PETSC_ERR_ARG_WRONG, "No measurement: give -measurement <file.h5> (e.g. one written by mbsid simulate -save_measurement)");
  PetscCall(MbsMeasurementRead(comm, obj->measurement, &obj->meas));
  PetscCall(MbsCostSetUp(obj->cost, obj->measurement, &obj->meas));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsObjectiveDestroy(MbsObjective *objective)
{
  MbsObjective obj = *objective;

  PetscFunctionBeginUser;
  if (!obj) PetscFunctionReturn(0);
  PetscCall(MbsCostDestroy(&obj->cost));
  PetscCall(MbsMeasurementReset(&obj->meas));
  PetscCall(MbsModelDestroy(&obj->model));
  PetscCall(PetscFree(obj->id));
  PetscCall(PetscFree2(obj->scan_J, obj->scan_grad));
  PetscCall(PetscFree(*objective));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveGetValues - The current values of the identified parameters. Not collective.
@*/
PetscErrorCode MbsObjectiveGetValues(MbsObjective obj, PetscReal x[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < obj->nid; k++) x[k] = obj->model->p[obj->id[k]];
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveSetValues - Sets the identified parameters (checked against their bounds). Not collective.
@*/
PetscErrorCode MbsObjectiveSetValues(MbsObjective obj, const PetscReal x[])
{
  PetscReal *p;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(obj->model->np, &p));
  PetscCall(MbsModelGetParameters(obj->model, p));
  for (PetscInt k = 0; k < obj->nid; k++) p[obj->id[k]] = x[k];
  PetscCall(MbsModelSetParameters(obj->model, p));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveEvaluate - J and (grad not NULL) dJ/dx at the identified parameter values x. A failed forward
  integration sets *ok = PETSC_FALSE instead of raising an error. Collective.
@*/
PetscErrorCode MbsObjectiveEvaluate(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[], PetscBool *ok)
{
  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveSetValues(obj, x));
  PetscCall(MbsGradient(obj->model, obj->cost, obj->nid, obj->id, J, grad, ok));
  obj->nevals++;
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveRecord - Simulates the current parameters and keeps the cost's curve in a slot (0 initial, 1 identified). Collective.
@*/
PetscErrorCode MbsObjectiveRecord(MbsObjective obj, PetscInt slot)
{
  MbsSignal signal;

  PetscFunctionBeginUser;
  PetscCall(MbsSimulate(obj->model, NULL, NULL, NULL, &signal));
  PetscCall(MbsCostRecord(obj->cost, &signal, slot));
  PetscCall(MbsSignalDestroy(&signal));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveWrite - /parameters/{name, unit, lower, upper, initial[, final]} of the identified parameters, the
  cost's measured and recorded curves, and the provenance. Not collective: call on the writing rank.
@*/
PetscErrorCode MbsObjectiveWrite(MbsObjective obj, MbsH5Writer *writer, const PetscReal initial[], const PetscReal final[])
{
  const char **names, **units;
  PetscReal   *lower, *upper;
  const char  *cost_type;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(obj->nid, &names, obj->nid, &units, obj->nid, &lower, obj->nid, &upper));
  for (PetscInt k = 0; k < obj->nid; k++) {
    const MbsParameterInfo *info = &obj->model->param_info[obj->id[k]];

    names[k] = info->name;
    units[k] = info->unit;
    lower[k] = info->lower;
    upper[k] = info->upper;
  }
  PetscCall(MbsH5WriteStrings(writer, "/parameters/name", obj->nid, names));
  PetscCall(MbsH5WriteStrings(writer, "/parameters/unit", obj->nid, units));
  PetscCall(MbsH5WriteReals(writer, "/parameters/lower", 1, &obj->nid, lower, "see /parameters/unit"));
  PetscCall(MbsH5WriteReals(writer, "/parameters/upper", 1, &obj->nid, upper, "see /parameters/unit"));
  PetscCall(MbsH5WriteReals(writer, "/parameters/initial", 1, &obj->nid, initial, "see /parameters/unit"));
  if (final) PetscCall(MbsH5WriteReals(writer, "/parameters/final", 1, &obj->nid, final, "see /parameters/unit"));
  PetscCall(MbsCostWrite(obj->cost, writer));
  PetscCall(MbsScanWrite(obj, writer));
  PetscCall(MbsCostGetType(obj->cost, &cost_type));
  PetscCall(MbsH5WriteAttribute(writer, "/", "model", obj->model->type));
  PetscCall(MbsH5WriteAttribute(writer, "/", "cost", cost_type));
  PetscCall(MbsH5WriteAttribute(writer, "/", "measurement", obj->measurement));
  PetscCall(MbsH5WriteAttribute(writer, "/", "output", obj->model->output_name));
  PetscCall(MbsH5WriteAttribute(writer, "/", "units", obj->model->output_unit));
  PetscCall(MbsH5WriteProvenance(writer, obj->comm));
  PetscCall(PetscFree4(names, units, lower, upper));
  PetscFunctionReturn(0);
}
