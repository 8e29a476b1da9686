/*
  Stop requests from the batch system. SLURM sends SIGTERM at a time limit or pre-emption and, with
  --signal=USR1@SECONDS, SIGUSR1 before it; a user's Ctrl-C sends SIGINT. While a long computation catches them,
  a signal only sets a flag: the computation asks at points where it can stop cleanly (between two solves), all
  ranks agree on the answer, and the stop travels back as the error code MBS_ERR_INTERRUPTED, which the error
  handler passes on without a traceback. Each signal is caught once: a second one has its default effect, so a
  process that does not come to a stopping point can still be ended.
*/
#define _POSIX_C_SOURCE 200809L /* sigaction: mbsid builds as strict C17 */
#include "mbsidimpl.h"
#include <signal.h>

static const int             MbsInterruptSignals[] = {SIGTERM, SIGUSR1, SIGINT};
static struct sigaction      MbsInterruptPrevious[PETSC_STATIC_ARRAY_LENGTH(MbsInterruptSignals)];
static volatile sig_atomic_t MbsInterruptCaught = 0;

static void MbsInterruptHandler(int signal)
{
  MbsInterruptCaught = signal;
}

/*@C
  MbsInterruptCatch - Starts (PETSC_TRUE) or ends catching SIGTERM, SIGUSR1 and SIGINT as stop requests. Not collective.
@*/
PetscErrorCode MbsInterruptCatch(PetscBool catch)
{
  PetscFunctionBeginUser;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(MbsInterruptSignals); i++) {
    if (catch) {
      struct sigaction action;

      PetscCall(PetscMemzero(&action, sizeof(action)));
      action.sa_handler = MbsInterruptHandler;
      action.sa_flags   = SA_RESETHAND | SA_RESTART;
      sigemptyset(&action.sa_mask);
      PetscCheck(sigaction(MbsInterruptSignals[i], &action, &MbsInterruptPrevious[i]) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot catch signal %d", MbsInterruptSignals[i]);
    } else PetscCheck(sigaction(MbsInterruptSignals[i], &MbsInterruptPrevious[i], NULL) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot restore the handler of signal %d", MbsInterruptSignals[i]);
  }
  if (!catch) MbsInterruptCaught = 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsInterruptRequested - The signal that asked any rank of comm to stop (the largest number when several did), or 0. Collective.
@*/
PetscErrorCode MbsInterruptRequested(MPI_Comm comm, int *signal)
{
  int caught = (int)MbsInterruptCaught;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&caught, signal, 1, MPI_INT, MPI_MAX, comm));
  PetscFunctionReturn(0);
}

/*@C
  MbsInterruptSignalName - "SIGTERM", "SIGUSR1", "SIGINT" or "signal N". Not collective.
@*/
const char *MbsInterruptSignalName(int signal)
{
  switch (signal) {
  case SIGTERM:
    return "SIGTERM";
  case SIGUSR1:
    return "SIGUSR1";
  case SIGINT:
    return "SIGINT";
  default:
    return "a signal";
  }
}
