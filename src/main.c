static const char help[] = "mbsid: identification of multibody-system parameters from vibration spectra.\n"
                           "Usage: mbsid <command> [options]   (options also from -options_file FILE.yaml)\n\n";

#include "commands/commandimpl.h"
#include <slepcsys.h>

static PetscErrorCode MbsMain(int argc, char **argv)
{
  PetscBool has_help;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  PetscCall(MbsOptionsFilesDeclare(PETSC_COMM_WORLD, argc, argv));
  if (argc > 1 && argv[1][0] != '-') PetscCall(MbsCommandRun(PETSC_COMM_WORLD, argv[1]));
  else {
    PetscCall(MbsCommandView(PETSC_COMM_WORLD));
    PetscCheck(has_help, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "No command given");
    PetscCall(MbsCommandRun(PETSC_COMM_WORLD, "simulate"));
  }
  PetscCall(MbsOptionsCheckUnused(PETSC_COMM_WORLD, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*
  Whether every rank came back with the error, asked without blocking on a communicator of its own: a rank that did
  not fail (still computing, or waiting in a collective that the failed ranks left) does not answer within the time,
  and the run is then aborted rather than left waiting.
*/
static PetscBool MbsEveryRankFailed(MPI_Comm agreement)
{
  MPI_Request request;
  int         done  = 0;
  double      start = MPI_Wtime();

  if (!MbsErrorRaisedOnEveryRank() || MPI_Ibarrier(agreement, &request) != MPI_SUCCESS) return PETSC_FALSE;
  while (!done && MPI_Wtime() - start < 30) {
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return PETSC_FALSE;
    if (!done) (void)PetscSleep(1e-3);
  }
  return (PetscBool)done;
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  MPI_Comm       agreement;
  char           fault[PETSC_MAX_PATH_LEN + 512], version_help[sizeof(help) + 256];

  if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-version"))) {
    printf("%s\n", MbsVersion());
    return 0;
  }
  if (MbsYAMLCheckOptionsFiles(argc, argv, fault, sizeof(fault))) { /* before PETSc reads the file, which names no line */
    int       rank   = 0;
    PetscBool mpi_up = (PetscBool)(MPI_Init(&argc, &argv) == MPI_SUCCESS);

    /* MPI only to end together: the first rank to exit non-zero makes mpiexec kill the others, rank 0 before it has
       printed unless MPI_Finalize, which waits for every rank, comes after its message */
    if (mpi_up) (void)MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!rank) fprintf(stderr, "mbsid: %s\n", fault);
    if (mpi_up) (void)MPI_Finalize();
    return 1;
  }
  (void)snprintf(version_help, sizeof(version_help), "%s%s\n\n", help, MbsVersion());
  PetscCall(SlepcInitialize(&argc, &argv, NULL, version_help));
  PetscCall(MbsPushErrorHandler());
  PetscCallMPI(MPI_Comm_dup(PETSC_COMM_WORLD, &agreement));
  ierr = MbsMain(argc, argv);
  if (ierr) MbsH5WritersAbandon(); /* before MPI ends: an abort skips atexit, and libhdf5 crashes on a file it cannot flush */
  /* an error that every rank raised has unwound every rank: finalise, so that -malloc_dump shows what it left */
  if (ierr && !MbsEveryRankFailed(agreement)) PetscCall(ierr); /* aborts every rank */
  if (ierr) PetscCall(MbsOptionsBlocksFree());
  PetscCallMPI(MPI_Comm_free(&agreement));
  PetscCall(PetscPopErrorHandler());
  PetscCall(SlepcFinalize());
  if (ierr) return ierr < 256 ? (int)ierr : 1;
  return MbsCommandGetExitStatus();
}
