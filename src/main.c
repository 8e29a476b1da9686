static const char help[] = "mbsid: identification of multibody-system parameters from vibration spectra.\n"
                           "Usage: mbsid <command> [options]   (options also from -options_file FILE.yaml)\n\n";

#include "commands/commandimpl.h"
#include <slepcsys.h>

/*
  An option that nothing read is most likely misspelt: with -unused_options_error it fails the run. An option counts
  as used when any rank used it: a rank without an experiment of its own never reads the integrator's options.
*/
static PetscErrorCode CheckUnusedOptions(void)
{
  PetscBool   error = PETSC_FALSE;
  PetscInt    n, unused = 0;
  char      **names, **values;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  MbsOptionsBegin(PETSC_COMM_WORLD, NULL, "Option checking", "mbsid");
  PetscCall(PetscOptionsBool("-unused_options_error", "Fail when an option was given but never used (misspelt)", "", error, &error, NULL));
  MbsOptionsEnd();
  if (!error) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values)); /* every rank has the same options; rank 0's candidates are asked round */
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, PETSC_COMM_WORLD));
  for (PetscInt i = 0; i < n; i++) {
    char      name[256] = "";
    PetscBool used      = PETSC_FALSE, used_anywhere;

    if (rank == 0) PetscCall(PetscStrncpy(name, names[i], sizeof(name)));
    PetscCallMPI(MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, PETSC_COMM_WORLD));
    if (rank) PetscCall(PetscOptionsUsed(NULL, name, &used));
    PetscCall(MPIU_Allreduce(&used, &used_anywhere, 1, MPIU_BOOL, MPI_LOR, PETSC_COMM_WORLD));
    if (used_anywhere) continue;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Unused option -%s %s\n", name, rank == 0 && values[i] ? values[i] : ""));
    unused++;
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(unused == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " option(s) were given but not used; check their spelling", unused);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsMain(int argc, char **argv)
{
  PetscBool has_help;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  if (argc > 1 && argv[1][0] != '-') PetscCall(MbsCommandRun(PETSC_COMM_WORLD, argv[1]));
  else {
    PetscCall(MbsCommandView(PETSC_COMM_WORLD));
    PetscCheck(has_help, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "No command given");
    PetscCall(MbsCommandRun(PETSC_COMM_WORLD, "simulate"));
  }
  PetscCall(CheckUnusedOptions());
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  char           fault[PETSC_MAX_PATH_LEN + 512];

  if (MbsYAMLCheckOptionsFiles(argc, argv, fault, sizeof(fault))) { /* before PETSc reads the file, which names no line */
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");

    if (!rank || !strcmp(rank, "0")) fprintf(stderr, "mbsid: %s\n", fault);
    return 1;
  }
  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(MbsPushErrorHandler());
  ierr = MbsMain(argc, argv);
  /* an error that every rank raised has unwound every rank: finalise, so that -malloc_dump shows what it left */
  if (ierr && !MbsErrorRaisedOnEveryRank()) PetscCall(ierr); /* aborts every rank */
  if (ierr) PetscCall(MbsOptionsBlocksFree());
  PetscCall(PetscPopErrorHandler());
  PetscCall(SlepcFinalize());
  if (ierr) return ierr < 256 ? (int)ierr : 1;
  return MbsCommandGetExitStatus();
}
