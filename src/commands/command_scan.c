/*
  mbsid scan: the cost (with -scan_gradient also its adjoint gradient) on the grid -scan_grid of the two
  identified parameters, written with the parameters and the measured and initial curves.
*/
#include "commands/commandimpl.h"

typedef struct {
  MbsObjective obj;
  MbsScan      scan;
  PetscReal   *initial;
} MbsScanCommand;

static PetscErrorCode MbsScanCommandDestroy_Private(MbsScanCommand *sc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(sc->initial));
  PetscCall(MbsScanDestroy(&sc->scan));
  PetscCall(MbsObjectiveDestroy(&sc->obj));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsScanRun_Private(MPI_Comm comm, MbsScanCommand *sc)
{
  PetscBool help, ok;
  char      output[PETSC_MAX_PATH_LEN] = "scan.h5";
  PetscReal J;
  MbsModel  model;
  PetscInt  nid;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "mbsid scan: the cost on a parameter grid", "scan");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  MbsOptionsEnd();
  PetscCall(MbsObjectiveCreate(comm, &sc->obj, &help));
  PetscCall(MbsScanCreate(sc->obj, &sc->scan));
  if (help) PetscFunctionReturn(0);
  PetscCheck(sc->scan, comm, PETSC_ERR_ARG_WRONG, "mbsid scan needs -scan_grid lo1,hi1,n1,lo2,hi2,n2");
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsObjectiveGetModel(sc->obj, &model));
  PetscCall(MbsObjectiveGetNumParameters(sc->obj, &nid));
  PetscCall(MbsModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscMalloc1(nid, &sc->initial));
  PetscCall(MbsObjectiveGetValues(sc->obj, sc->initial));
  PetscCall(MbsObjectiveRecord(sc->obj, 0, NULL));
  PetscCall(MbsScanRun(sc->scan));
  PetscCall(MbsObjectiveEvaluate(sc->obj, sc->initial, &J, NULL, &ok)); /* the experiments' J at the start, for the file */
  PetscCall(MbsObjectiveWriteFile(sc->obj, output, sc->initial, NULL, MbsScanWrite, sc->scan));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandScan(MPI_Comm comm)
{
  MbsScanCommand sc = {NULL, NULL, NULL};

  PetscFunctionBeginUser;
  MbsCallCleanup(MbsScanRun_Private(comm, &sc), MbsScanCommandDestroy_Private(&sc));
  PetscFunctionReturn(0);
}
