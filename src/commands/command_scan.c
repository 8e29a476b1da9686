/*
  mbsid scan: the cost (with -scan_gradient also its adjoint gradient) on the grid -scan_grid of the two
  identified parameters, written with the parameters and the measured and initial curves.
*/
#include "commands/commandimpl.h"

PetscErrorCode MbsCommandScan(MPI_Comm comm)
{
  MbsObjective obj;
  MbsScan      scan;
  PetscBool    help;
  PetscReal   *initial;
  char         output[PETSC_MAX_PATH_LEN] = "scan.h5";
  PetscReal    J;
  PetscBool    ok;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "mbsid scan: the cost on a parameter grid", "scan");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscOptionsEnd();
  PetscCall(MbsObjectiveCreate(comm, &obj, &help));
  PetscCall(MbsScanCreate(obj, &scan));
  if (help) {
    PetscCall(MbsScanDestroy(&scan));
    PetscCall(MbsObjectiveDestroy(&obj));
    PetscFunctionReturn(0);
  }
  PetscCheck(scan, comm, PETSC_ERR_ARG_WRONG, "mbsid scan needs -scan_grid lo1,hi1,n1,lo2,hi2,n2");
  PetscCall(MbsModelView(obj->model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscMalloc1(obj->nid, &initial));
  PetscCall(MbsObjectiveGetValues(obj, initial));
  PetscCall(MbsObjectiveRecord(obj, 0));
  PetscCall(MbsScanRun(scan));
  PetscCall(MbsObjectiveEvaluate(obj, initial, &J, NULL, &ok)); /* the experiments' J at the start, for the file */
  PetscCall(MbsObjectiveWriteFile(obj, output, initial, NULL, MbsScanWrite, scan));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscCall(PetscFree(initial));
  PetscCall(MbsScanDestroy(&scan));
  PetscCall(MbsObjectiveDestroy(&obj));
  PetscFunctionReturn(0);
}
