/*
  The commands of the mbsid executable, a registry so that a new command is one function and one line.
*/
#include "commands/commandimpl.h"

static PetscFunctionList MbsCommandList              = NULL;
static PetscBool         MbsCommandRegisterAllCalled = PETSC_FALSE;
static int               MbsCommandExitStatus        = 0;

/* Frees the registry at PetscFinalize() */
static PetscErrorCode MbsCommandFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&MbsCommandList));
  MbsCommandRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MbsCommandRegisterAll - Registers the commands of mbsid. Not collective.
@*/
PetscErrorCode MbsCommandRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (MbsCommandRegisterAllCalled) PetscFunctionReturn(0);
  MbsCommandRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(MbsCommandFinalizePackage));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "simulate", MbsCommandSimulate));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "gradcheck", MbsCommandGradcheck));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "identify", MbsCommandIdentify));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "scan", MbsCommandScan));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "eigen", MbsCommandEigen));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "perturb", MbsCommandPerturb));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "design", MbsCommandDesign));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "import", MbsCommandImport));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "track", MbsCommandTrack));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "beam", MbsCommandBeam));
  PetscCall(PetscFunctionListAdd(&MbsCommandList, "frf", MbsCommandFrf));
  PetscFunctionReturn(0);
}

/*@C
  MbsCommandView - Prints the usage line and the known commands. Collective.
@*/
PetscErrorCode MbsCommandView(MPI_Comm comm)
{
  char names[256];

  PetscFunctionBeginUser;
  PetscCall(MbsCommandRegisterAll());
  PetscCall(MbsFunctionListNames(MbsCommandList, names, sizeof(names)));
  PetscCall(PetscPrintf(comm, "Usage: mbsid <command> [options]; mbsid <command> -help lists the command's options with their defaults.\nCommands: %s\n", names));
  PetscFunctionReturn(0);
}

/*@C
  MbsCommandRun - Runs the named command; an unknown name is an error that lists the known commands. Collective.
@*/
PetscErrorCode MbsCommandRun(MPI_Comm comm, const char name[])
{
  MbsCommandFn command = NULL;

  PetscFunctionBeginUser;
  PetscCall(MbsCommandRegisterAll());
  PetscCall(PetscFunctionListFind(MbsCommandList, name, &command));
  if (!command) {
    char names[256];

    PetscCall(MbsFunctionListNames(MbsCommandList, names, sizeof(names)));
    SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown command '%s'; commands: %s", name, names);
  }
  PetscCall(command(comm));
  PetscFunctionReturn(0);
}

/*@C
  MbsCommandSetExitStatus - The exit status of mbsid after a command that returns without error, e.g. MBS_EXIT_STOPPED. Not collective.
@*/
PetscErrorCode MbsCommandSetExitStatus(int status)
{
  PetscFunctionBeginUser;
  MbsCommandExitStatus = status;
  PetscFunctionReturn(0);
}

/*@C
  MbsCommandGetExitStatus - The exit status set by the command, 0 unless it said otherwise. Not collective.
@*/
int MbsCommandGetExitStatus(void)
{
  return MbsCommandExitStatus;
}
