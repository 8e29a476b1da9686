/*
  mbsid eigen: the modes of the model's linearisation at the given parameters (eigen.c), as a table and
  in -o eigen.h5 under /eigen.
*/
#include "commands/commandimpl.h"

PetscErrorCode MbsCommandEigen(MPI_Comm comm)
{
  MbsModel       model;
  MbsEigenResult result;
  char           output[PETSC_MAX_PATH_LEN] = "eigen.h5";
  PetscBool      help;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "mbsid eigen: modes of the linearised model", "eigen");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscOptionsEnd();
  PetscCall(MbsModelCreate(comm, &model));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(MbsModelDestroy(&model));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(MbsEigenCompute(model, NULL, &result));
  PetscCall(PetscPrintf(comm, "Modes of the linearisation of %s (%" PetscInt_FMT " coordinates):\n", model->type, result.nq));
  PetscCall(MbsEigenView(comm, &result));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    MbsH5Writer writer;

    PetscCall(MbsH5WriterOpen(output, &writer));
    PetscCall(MbsEigenWrite(&writer, "/eigen", &result));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "model", model->type));
    PetscCall(MbsH5WriteProvenance(&writer, comm));
    PetscCall(MbsH5WriterClose(&writer));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscCall(MbsEigenResultReset(&result));
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}
