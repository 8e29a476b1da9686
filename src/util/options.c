/*
  Checked reading of application options. PETSc's array reader fills the array it is given and drops whatever does
  not fit, so -time_span 0,5,7 would silently become 0,5: the reader here offers one slot more and refuses a count
  other than the expected one, and any value that is not a finite number, naming the option. A result file's
  directory is checked when the option is read, not after the work that would have filled the file.
*/
#include "mbsidimpl.h"
#include <libgen.h>

static PetscErrorCode MbsOptionsRealArrayRead_Private(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt n, PetscReal read[], PetscReal values[], PetscBool *set)
{
  PetscInt  count = n + 1;
  PetscBool given;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(read, values, n));
  read[n] = 0;
  PetscCall(PetscOptionsRealArray(name, text, man, read, &count, &given));
  if (given) {
    PetscCheck(count == n, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "Option %s needs exactly %" PetscInt_FMT " values, got %s%" PetscInt_FMT " (%s)", name, n, count > n ? "more than " : "", count > n ? n : count, text);
    for (PetscInt i = 0; i < n; i++) PetscCheck(!PetscIsInfOrNanReal(read[i]), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Option %s: value %" PetscInt_FMT " is %g, not a finite number", name, i + 1, (double)read[i]);
    PetscCall(PetscArraycpy(values, read, n));
  }
  if (set) *set = given;
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsRealArrayExact - Inside an options block (MbsOptionsBegin()): reads the option name into values[0..n-1] (which
  hold the defaults), listed in -help with text; when given, it must have exactly n finite values. Collective.
@*/
PetscErrorCode MbsOptionsRealArrayExact(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt n, PetscReal values[], PetscBool *set)
{
  PetscReal *read;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, &read));
  MbsCallUndo(MbsOptionsRealArrayRead_Private(PetscOptionsObject, name, text, man, n, read, values, set), PetscFree(read));
  PetscCall(PetscFree(read));
  PetscFunctionReturn(0);
}

/*
  A PETSc options block allocates its title and prefix in PetscOptionsBegin() and frees them in PetscOptionsEnd(),
  which an error inside the block skips. mbsid's blocks (MbsOptionsBegin(), MbsOptionsEnd()) record the two strings
  while they are open, so that main() can free what an error left open before it finalises.
*/
static struct {
  char *title, *prefix;
} MbsOpenBlocks[16];
static int MbsNumOpenBlocks = 0;

/*@C
  MbsOptionsBlockOpened - Records the strings of an options block just begun (MbsOptionsBegin()). Not collective.
@*/
PetscErrorCode MbsOptionsBlockOpened(PetscOptionItems *items)
{
  PetscFunctionBeginUser;
  PetscCheck(MbsNumOpenBlocks < (int)PETSC_STATIC_ARRAY_LENGTH(MbsOpenBlocks), PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d nested options blocks", (int)PETSC_STATIC_ARRAY_LENGTH(MbsOpenBlocks));
  MbsOpenBlocks[MbsNumOpenBlocks].title  = items->title;
  MbsOpenBlocks[MbsNumOpenBlocks].prefix = items->prefix;
  MbsNumOpenBlocks++;
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsBlockClosing - Forgets the innermost open options block, which PetscOptionsEnd() frees next. Not collective.
@*/
PetscErrorCode MbsOptionsBlockClosing(PetscOptionItems *items)
{
  PetscFunctionBeginUser;
  PetscCheck(MbsNumOpenBlocks > 0 && MbsOpenBlocks[MbsNumOpenBlocks - 1].title == items->title, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Options block '%s' closed out of order", items->title);
  MbsNumOpenBlocks--;
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsBlocksFree - Frees the strings of the options blocks that an error left open. Not collective.
@*/
PetscErrorCode MbsOptionsBlocksFree(void)
{
  PetscFunctionBeginUser;
  while (MbsNumOpenBlocks > 0) {
    MbsNumOpenBlocks--;
    PetscCall(PetscFree(MbsOpenBlocks[MbsNumOpenBlocks].title));
    PetscCall(PetscFree(MbsOpenBlocks[MbsNumOpenBlocks].prefix));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsStringsFree - Frees the n strings of list, e.g. those read by PetscOptionsStringArray(). Not collective.
@*/
PetscErrorCode MbsStringsFree(PetscInt n, char *list[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n; k++) PetscCall(PetscFree(list[k]));
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsIntRange - Inside an options block (MbsOptionsBegin()): reads the integer option name into value (which
  holds the default); when given, it must lie in [lower, upper]. PETSc's reader wraps a number beyond PetscInt
  (1000000000000 becomes -727379968): the value is compared with the number as written. Collective.
@*/
PetscErrorCode MbsOptionsIntRange(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], PetscInt *value, PetscInt lower, PetscInt upper, PetscBool *set)
{
  char      written[64] = "";
  PetscBool given;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsInt(name, text, "", *value, value, &given));
  if (given) {
    PetscCall(PetscOptionsGetString(PetscOptionsObject->options, PetscOptionsObject->prefix, name, written, sizeof(written), NULL));
    PetscCheck(strtod(written, NULL) == (double)*value && *value >= lower && *value <= upper, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Option %s %s: must be an integer in [%" PetscInt_FMT ", %" PetscInt_FMT "] (%s)", name, written, lower, upper, text);
  }
  if (set) *set = given;
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsOutputFile - Inside an options block (MbsOptionsBegin()): reads the result file option name into path (which
  holds the default); a non-empty path must lie in an existing, writable directory. Collective.
@*/
PetscErrorCode MbsOptionsOutputFile(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], char path[], size_t size)
{
  char directory[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, text, "", path, path, size, NULL));
  if (!path[0]) PetscFunctionReturn(0);
  PetscCall(PetscStrncpy(directory, path, sizeof(directory)));
  PetscCheck(access(dirname(directory), W_OK | X_OK) == 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "Option %s %s: directory '%s' does not exist or is not writable", name, path, directory);
  PetscFunctionReturn(0);
}

/*
  -help of a PETSc solver prints the options of every object inside it, each nested solver again under its own prefix
  (TAO's quasi-Newton matrix alone brings hundreds of KSP, PC and viewer lines), in blocks nested without an end
  marker. A command mutes that while it sets a solver up for -help, and lists the solver options it honours itself.
  PETSc prints help through PetscHelpPrintf, and the lists of types straight to stdout through PetscVFPrintf.
*/
static PetscErrorCode (*MbsHelpPrintfUnmuted)(MPI_Comm, const char[], ...) = NULL;
static PetscErrorCode (*MbsVFPrintfUnmuted)(FILE *, const char[], va_list) = NULL;

static PetscErrorCode MbsHelpPrintfMuted(MPI_Comm comm, const char format[], ...)
{
  return 0;
}

static PetscErrorCode MbsVFPrintfMuted(FILE *fd, const char format[], va_list args)
{
  return 0;
}

/*@C
  MbsHelpMute - Mutes (PETSC_TRUE) or restores (PETSC_FALSE) what PETSc prints, for the -help of a solver set up
  between the two calls. Not collective.
@*/
PetscErrorCode MbsHelpMute(PetscBool mute)
{
  PetscFunctionBeginUser;
  PetscCheck(mute == !MbsHelpPrintfUnmuted, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MbsHelpMute(%s) called twice", mute ? "PETSC_TRUE" : "PETSC_FALSE");
  if (mute) {
    MbsHelpPrintfUnmuted = PetscHelpPrintf;
    MbsVFPrintfUnmuted   = PetscVFPrintf;
    PetscHelpPrintf      = MbsHelpPrintfMuted;
    PetscVFPrintf        = MbsVFPrintfMuted;
  } else {
    PetscHelpPrintf      = MbsHelpPrintfUnmuted;
    PetscVFPrintf        = MbsVFPrintfUnmuted;
    MbsHelpPrintfUnmuted = NULL;
  }
  PetscFunctionReturn(0);
}

/*
  Whether the last error was raised on a communicator that spans every rank. By PETSc's convention every rank of that
  communicator raises it, so every rank returns to main() and can finalise; an error on fewer ranks must abort the
  others, which would wait for it forever.
*/
static PetscBool MbsErrorOnEveryRank = PETSC_FALSE;

/*
  Whether this rank keeps quiet about the last error: rank 0 of the communicator reports an error that all its ranks
  raise. PETSc's own handler would instead hold the other ranks for ten seconds and exit them without finalising.
*/
static PetscBool MbsErrorQuiet = PETSC_FALSE;

/*@C
  MbsErrorRaisedOnEveryRank - Whether the last error was raised collectively on every rank, so that main() may destroy
  what is left and finalise instead of aborting. Not collective.
@*/
PetscBool MbsErrorRaisedOnEveryRank(void)
{
  return MbsErrorOnEveryRank;
}

/*
  mbsid's error handler. PETSc's message for an option value that is not a number, "Input string abc has no numeric
  value", names no option: the handler adds the option whose value (or one of whose comma-separated values) is that
  string. A stop request (MBS_ERR_INTERRUPTED, interrupt.c) is no fault: it returns through the callers silently, as
  does an error on the ranks other than the first of its communicator.
*/
static PetscErrorCode MbsFindOptionWithValue_Private(const char token[], char option[], size_t size)
{
  char  *all, **argv;
  int    argc;
  size_t length;

  PetscFunctionBeginUser;
  option[0] = 0;
  PetscCall(PetscStrlen(token, &length));
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(PetscStrToArray(all, ' ', &argc, &argv));
  for (int i = 0; i + 1 < argc && !option[0]; i++) {
    const char *value = argv[i + 1];

    if (argv[i][0] != '-') continue;
    for (const char *element = value; element && !option[0]; element = strchr(element, ',') ? strchr(element, ',') + 1 : NULL) {
      if (!strncmp(element, token, length) && (element[length] == 0 || element[length] == ',')) PetscCall(PetscSNPrintf(option, size, "%s %s", argv[i], value));
    }
  }
  PetscCall(PetscStrToArrayDestroy(argc, argv));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  const char *prefixes[] = {"Input string ", "Unknown logical value: "}, *start = NULL;
  char        token[256], option[512]                                           = "", text[1024];
  size_t      length;

  if (p == PETSC_ERROR_INITIAL) {
    PetscMPIInt size = 0, world_size = -1, rank = 0;

    if (comm != MPI_COMM_NULL) {
      MPI_Comm_size(comm, &size);
      MPI_Comm_rank(comm, &rank);
    }
    MPI_Comm_size(PETSC_COMM_WORLD, &world_size);
    MbsErrorOnEveryRank = (PetscBool)(size == world_size);
    MbsErrorQuiet       = (PetscBool)(rank > 0);
  }
  if (n == MBS_ERR_INTERRUPTED || MbsErrorQuiet) return n;
  for (size_t i = 0; p == PETSC_ERROR_INITIAL && mess && i < PETSC_STATIC_ARRAY_LENGTH(prefixes) && !start; i++)
    if (!strncmp(mess, prefixes[i], strlen(prefixes[i]))) start = mess + strlen(prefixes[i]);
  if (!start) return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
  length = strcspn(start, " ");
  if (length >= sizeof(token)) length = sizeof(token) - 1;
  memcpy(token, start, length);
  token[length] = 0;
  if (MbsFindOptionWithValue_Private(token, option, sizeof(option)) || !option[0]) return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
  snprintf(text, sizeof(text), "Option %s: %s", option, mess);
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, text, ctx);
}

/*@C
  MbsPushErrorHandler - Installs mbsid's error handler: errors about an option value that is not a number name the option,
  stop requests pass silently. Not collective.
@*/
PetscErrorCode MbsPushErrorHandler(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(MbsErrorHandler, NULL));
  PetscFunctionReturn(0);
}
