/*
  Checked reading of application options. PETSc's array reader fills the array it is given and drops whatever does
  not fit, so -time_span 0,5,7 would silently become 0,5: the reader here offers one slot more and refuses a count
  other than the expected one, and any value that is not a finite number, naming the option. A result file's
  directory is checked when the option is read, not after the work that would have filled the file.
*/
#include "mbsidimpl.h"
#include <libgen.h>
#include <sys/stat.h>

static PetscErrorCode MbsOptionsRealArrayRead_Private(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt n, PetscReal read[], PetscReal values[], PetscBool *set)
{
  PetscInt  count = n + 1;
  PetscBool given;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(read, values, n));
  read[n] = 0;
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, name, text, man, n, read, &count, &given));
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

/*@C
  MbsNamedValues - Reads a list "NAME:value,..." given to option (its value, list) into values[c] of the entry (what:
  a channel, a parameter) that each NAME names among names[0..n-1]; the entries not named keep their values. Every
  value must be a positive number; where names the file or the list the names come from, for the messages. Collective.
@*/
PetscErrorCode MbsNamedValues(MPI_Comm comm, const char option[], const char list[], const char what[], const char where[], PetscInt n, const char *const names[], PetscReal values[])
{
  char **items  = NULL;
  int    nitems = 0;

  PetscFunctionBeginUser;
  if (!list[0]) PetscFunctionReturn(0);
  PetscCall(PetscStrToArray(list, ',', &nitems, &items));
  for (int k = 0; k < nitems; k++) {
    char     *colon = strrchr(items[k], ':'), *end = NULL, item[256];
    PetscReal value  = colon ? (PetscReal)strtod(colon + 1, &end) : -1;
    PetscBool syntax = (PetscBool)(!colon || end == colon + 1 || *end);
    PetscInt  c      = 0;

    PetscCall(PetscStrncpy(item, items[k], sizeof(item)));
    if (colon) *colon = 0;
    while (c < n && (syntax || strcmp(items[k], names[c]))) c++;
    if (syntax || c == n || !(value > 0) || PetscIsInfOrNanReal(value)) {
      PetscCall(PetscStrToArrayDestroy(nitems, items));
      PetscCheck(!syntax, comm, PETSC_ERR_ARG_WRONG, "%s: '%s' is not NAME:value (the name of a %s and its value)", option, item, what);
      PetscCheck(c < n, comm, PETSC_ERR_ARG_WRONG, "%s: '%s' names no %s of %s", option, item, what, where);
      SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: '%s' gives a value that is not a positive number", option, item);
    }
    values[c] = value;
  }
  PetscCall(PetscStrToArrayDestroy(nitems, items));
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
  MbsStrlcat - Appends as much of t (may be NULL) to the string s in a buffer of n bytes as fits, always terminated.
  PETSc 3.18's PetscStrlcat appends at most n - strlen(t) bytes of t instead of n - strlen(s) - 1: it cut a model's
  only parameter 'f_plus' to 'f_' in the default -identify list (8 bytes), and it writes past the buffer when s
  nearly fills it (MBS_PETSC_STRLCAT_TRUNCATES). Not collective.
@*/
PetscErrorCode MbsStrlcat(char s[], const char t[], size_t n)
{
  size_t used;

  PetscFunctionBeginUser;
  if (!MBS_PETSC_STRLCAT_TRUNCATES) {
    PetscCall(PetscStrlcat(s, t, n));
    PetscFunctionReturn(0);
  }
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "String buffer length must be positive");
  PetscCall(PetscStrlen(s, &used));
  PetscCheck(used < n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "A string of %zu characters in a buffer of %zu bytes", used, n);
  if (t) strncat(s, t, n - used - 1);
  PetscFunctionReturn(0);
}

/*
  The files a command reads and writes, declared as their options are read. An output that is one of the inputs, or
  another output, would destroy what the run reads or writes first: each declaration is compared with those before
  it, so that the refusal comes before any work. Two paths name the same file when both exist and share device and
  inode (./x, dir/../x, links), else when their resolved directories and base names agree (an output not yet
  written).
*/
typedef struct {
  char      option[256], path[PETSC_MAX_PATH_LEN], resolved[PETSC_MAX_PATH_LEN];
  char      rewritten_by[64]; /* the output option that may replace this input (a checkpoint its restart file) */
  PetscBool output, exists;
  dev_t     device;
  ino_t     inode;
} MbsDeclaredFile;

static MbsDeclaredFile *MbsDeclaredFiles    = NULL;
static int              MbsNumDeclaredFiles = 0, MbsMaxDeclaredFiles = 0;

static PetscErrorCode MbsDeclaredFilesForget_Private(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(MbsDeclaredFiles));
  MbsNumDeclaredFiles = MbsMaxDeclaredFiles = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsDeclaredFileIdentify_Private(MbsDeclaredFile *file)
{
  char        directory[PETSC_MAX_PATH_LEN], base[PETSC_MAX_PATH_LEN], real[PETSC_MAX_PATH_LEN];
  struct stat status;

  PetscFunctionBeginUser;
  file->exists = (PetscBool)(stat(file->path, &status) == 0);
  file->device = file->exists ? status.st_dev : 0;
  file->inode  = file->exists ? status.st_ino : 0;
  PetscCall(PetscStrncpy(directory, file->path, sizeof(directory)));
  PetscCall(PetscStrncpy(base, file->path, sizeof(base)));
  if (realpath(dirname(directory), real)) PetscCall(PetscSNPrintf(file->resolved, sizeof(file->resolved), "%s/%s", real, basename(base)));
  else PetscCall(PetscStrncpy(file->resolved, file->path, sizeof(file->resolved)));
  PetscFunctionReturn(0);
}

static PetscBool MbsDeclaredFilesSame_Private(const MbsDeclaredFile *a, const MbsDeclaredFile *b)
{
  if (a->exists && b->exists) return (PetscBool)(a->device == b->device && a->inode == b->inode);
  return (PetscBool)!strcmp(a->resolved, b->resolved);
}

/*@C
  MbsFileDeclare - Declares that the command reads (output false) or writes (output true) the file at path, named by
  option; refuses an output that names the same file as an input or another output declared before, except the output
  option rewritten_by (may be NULL) in place of this input. An empty path declares nothing. Collective on comm.
@*/
PetscErrorCode MbsFileDeclare(MPI_Comm comm, const char option[], const char path[], PetscBool output, const char rewritten_by[])
{
  MbsDeclaredFile file;

  PetscFunctionBeginUser;
  if (!path || !path[0]) PetscFunctionReturn(0);
  PetscCall(PetscMemzero(&file, sizeof(file)));
  PetscCall(PetscStrncpy(file.option, option, sizeof(file.option)));
  PetscCall(PetscStrncpy(file.path, path, sizeof(file.path)));
  PetscCall(PetscStrncpy(file.rewritten_by, rewritten_by ? rewritten_by : "", sizeof(file.rewritten_by)));
  file.output = output;
  PetscCall(MbsDeclaredFileIdentify_Private(&file));
  for (int k = 0; k < MbsNumDeclaredFiles; k++) {
    const MbsDeclaredFile *other = &MbsDeclaredFiles[k];
    const MbsDeclaredFile *input = output ? other : &file, *written = output ? &file : other;

    if (!MbsDeclaredFilesSame_Private(&file, other)) continue;
    if (!strcmp(other->option, file.option) && other->output == output) PetscFunctionReturn(0); /* the same option read again */
    if (!output && !other->output) continue;
    if (!input->output) {
      if (!strcmp(input->rewritten_by, written->option)) continue;
      SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "%s %s is the same file as the input %s %s: mbsid never writes over a file it reads; give %s another file", written->option, written->path, input->option, input->path, written->option);
    }
    SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "%s %s and %s %s are the same file: each output needs a file of its own", other->option, other->path, file.option, file.path);
  }
  if (MbsNumDeclaredFiles == MbsMaxDeclaredFiles) {
    if (!MbsMaxDeclaredFiles) PetscCall(PetscRegisterFinalize(MbsDeclaredFilesForget_Private));
    MbsMaxDeclaredFiles = PetscMax(8, 2 * MbsMaxDeclaredFiles);
    PetscCall(PetscRealloc(MbsMaxDeclaredFiles * sizeof(*MbsDeclaredFiles), &MbsDeclaredFiles));
  }
  MbsDeclaredFiles[MbsNumDeclaredFiles++] = file;
  PetscFunctionReturn(0);
}

/*@C
  MbsDeclaredFileCount - The number of files declared so far (MbsFileDeclare()). Not collective.
@*/
PetscInt MbsDeclaredFileCount(void)
{
  return MbsNumDeclaredFiles;
}

/*@C
  MbsDeclaredFileGet - The option, path and direction of declared file i, in the order of declaration. Not collective.
@*/
void MbsDeclaredFileGet(PetscInt i, const char **option, const char **path, PetscBool *output)
{
  *option = MbsDeclaredFiles[i].option;
  *path   = MbsDeclaredFiles[i].path;
  *output = MbsDeclaredFiles[i].output;
}

/* The option's full name, with the options block's prefix */
static PetscErrorCode MbsOptionsFullName_Private(PetscOptionItems *PetscOptionsObject, const char name[], char full[], size_t size)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(full, size, "-%s%s", PetscOptionsObject->prefix ? PetscOptionsObject->prefix : "", name + 1));
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsInputFile - Inside an options block (MbsOptionsBegin()): reads the option name, a file the command reads,
  into path (which holds the default) and declares it (MbsFileDeclare()). Collective.
@*/
PetscErrorCode MbsOptionsInputFile(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], char path[], size_t size, PetscBool *set)
{
  char option[256];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, text, man, path, path, size, set));
  PetscCall(MbsOptionsFullName_Private(PetscOptionsObject, name, option, sizeof(option)));
  PetscCall(MbsFileDeclare(PetscOptionsObject->comm, option, path, PETSC_FALSE, NULL));
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
    PetscCheck((!MBS_PETSC_OPTIONS_INT_WRAPS || strtod(written, NULL) == (double)*value) && *value >= lower && *value <= upper, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Option %s %s: must be an integer in [%" PetscInt_FMT ", %" PetscInt_FMT "] (%s)", name, written, lower, upper, text);
  }
  if (set) *set = given;
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsOutputFile - Inside an options block (MbsOptionsBegin()): reads the result file option name into path (which
  holds the default); a non-empty path must lie in an existing, writable directory and be no file the command reads or
  writes otherwise (MbsFileDeclare()). Collective.
@*/
PetscErrorCode MbsOptionsOutputFile(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], char path[], size_t size)
{
  char directory[PETSC_MAX_PATH_LEN], option[256];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, text, "", path, path, size, NULL));
  if (!path[0]) PetscFunctionReturn(0);
  PetscCall(PetscStrncpy(directory, path, sizeof(directory)));
  PetscCheck(access(dirname(directory), W_OK | X_OK) == 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "Option %s %s: directory '%s' does not exist or is not writable", name, path, directory);
  PetscCall(MbsOptionsFullName_Private(PetscOptionsObject, name, option, sizeof(option)));
  PetscCall(MbsFileDeclare(PetscOptionsObject->comm, option, path, PETSC_TRUE, NULL));
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsFilesDeclare - Declares the options files of argv (-options_file, -options_file_yaml) as files the command
  reads (MbsFileDeclare()). Collective.
@*/
PetscErrorCode MbsOptionsFilesDeclare(MPI_Comm comm, int argc, char **argv)
{
  PetscFunctionBeginUser;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "-options_file") || !strcmp(argv[i], "-options_file_yaml")) PetscCall(MbsFileDeclare(comm, argv[i], argv[i + 1], PETSC_FALSE, NULL));
  PetscFunctionReturn(0);
}

/*
  An option that nothing read is most likely misspelt: with -unused_options_error it fails the run. mbsid reads its
  own options before any work, so a command checks them before its first solve (and before writing anything); the
  options of PETSc's solvers are read when a solve sets its solver up, and are checked at the end. An option counts
  as used when any rank used it: a rank without an experiment of its own never reads the integrator's options.
*/
static PetscBool MbsIsSolverOption_Private(const char name[])
{
  const char *solvers[] = {"ts_", "snes_", "ksp_", "pc_", "tao_", "mat_", "vec_", "pep_", "eps_", "st_", "bv_", "ds_", "rg_", "fn_", "log_", "malloc", "options_", "viewer", "draw", "info"};
  const char *rest      = strchr(name, '_');

  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(solvers); k++) /* also under an experiment's prefix: -a_ts_rtol */
    if (!strncmp(name, solvers[k], strlen(solvers[k])) || (rest && !strncmp(rest + 1, solvers[k], strlen(solvers[k])))) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*@C
  MbsOptionsCheckUnused - With -unused_options_error, fails when an option was given but not used: before the first
  solve (solvers_set_up false) mbsid's own options, at the end every option. Collective on PETSC_COMM_WORLD (comm
  must span it).
@*/
PetscErrorCode MbsOptionsCheckUnused(MPI_Comm comm, PetscBool solvers_set_up)
{
  PetscBool   error = PETSC_FALSE;
  PetscInt    n, unused = 0;
  char      **names, **values;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "Option checking", "mbsid");
  PetscCall(PetscOptionsBool("-unused_options_error", "Fail when an option was given but never used (misspelt)", "", error, &error, NULL));
  MbsOptionsEnd();
  if (!error) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values)); /* every rank has the same options; rank 0's candidates are asked round */
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, comm));
  for (PetscInt i = 0; i < n; i++) {
    char      name[256] = "";
    PetscBool used      = PETSC_FALSE, used_anywhere;

    if (rank == 0) PetscCall(PetscStrncpy(name, names[i], sizeof(name)));
    PetscCallMPI(MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, comm));
    if (!solvers_set_up && MbsIsSolverOption_Private(name)) continue;
    if (rank) PetscCall(PetscOptionsUsed(NULL, name, &used));
    PetscCall(MPIU_Allreduce(&used, &used_anywhere, 1, MPIU_BOOL, MPI_LOR, comm));
    if (used_anywhere) continue;
    PetscCall(PetscPrintf(comm, "Unused option -%s %s\n", name, rank == 0 && values[i] ? values[i] : ""));
    unused++;
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(unused == 0, comm, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " option(s) were given but not used; check their spelling%s", unused, solvers_set_up ? "" : " (found before the first solve: nothing was computed or written)");
  PetscFunctionReturn(0);
}

/*
  -help of a PETSc solver prints the options of every object inside it, each nested solver again under its own prefix
  (TAO's quasi-Newton matrix alone brings hundreds of KSP, PC and viewer lines), in blocks nested without an end
  marker. A command mutes that while it sets a solver up for -help, and lists the solver options it honours itself.
  PETSc prints help through PetscHelpPrintf, and the lists of types straight to stdout through PetscVFPrintf; it
  offers no switch for -help of one object without those nested in it, so the two printers are swapped
  (MBS_PETSC_HELP_NESTED_SOLVERS).
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
  if (!MBS_PETSC_HELP_NESTED_SOLVERS) PetscFunctionReturn(0);
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
  PETSc 3.18's -help lists an array option with the first value of its default only (-time_span <0.> for 0,1,
  -design_error_grid <0.225> for six values): with -help, the line with the whole default (n values, real or integer)
  is printed here, <none> for an empty one, and PETSc's own muted until the caller has read the option (*muted: call
  MbsHelpMute(PETSC_FALSE)).
*/
static PetscErrorCode MbsOptionsArrayHelp_Private(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt n, const PetscReal real[], const PetscInt integer[], PetscBool *muted)
{
  MPI_Comm comm = PetscOptionsObject->comm;

  PetscFunctionBeginUser;
  *muted = PETSC_FALSE;
  if (!MBS_PETSC_HELP_ARRAY_FIRST_VALUE || !PetscOptionsObject->printhelp || PetscOptionsObject->count != 1 || PetscOptionsObject->alreadyprinted || MbsHelpPrintfUnmuted) PetscFunctionReturn(0);
  PetscCall((*PetscHelpPrintf)(comm, "  -%s%s <%s", PetscOptionsObject->prefix ? PetscOptionsObject->prefix : "", name + 1, n < 1 ? "none" : ""));
  for (PetscInt i = 0; i < n; i++) {
    if (real) PetscCall((*PetscHelpPrintf)(comm, i ? ",%g" : "%g", (double)real[i]));
    else PetscCall((*PetscHelpPrintf)(comm, i ? ",%" PetscInt_FMT : "%" PetscInt_FMT, integer[i]));
  }
  PetscCall((*PetscHelpPrintf)(comm, ">: %s (%s)\n", text, man ? man : "None"));
  PetscCall(MbsHelpMute(PETSC_TRUE));
  *muted = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* PetscOptionsRealArray() (real) or PetscOptionsIntArray() (integer), with the whole default in -help */
static PetscErrorCode MbsOptionsArray_Private(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt ndefault, PetscReal real[], PetscInt integer[], PetscInt *n, PetscBool *set)
{
  PetscBool muted;

  PetscFunctionBeginUser;
  PetscCall(MbsOptionsArrayHelp_Private(PetscOptionsObject, name, text, man, ndefault, real, integer, &muted));
  if (real) PetscCall(PetscOptionsRealArray(name, text, man, real, n, set));
  else PetscCall(PetscOptionsIntArray(name, text, man, integer, n, set));
  if (muted) PetscCall(MbsHelpMute(PETSC_FALSE));
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsRealArray - Inside an options block: PetscOptionsRealArray(), whose -help line shows all ndefault values of
  the default in values[] (PETSc 3.18 shows the first). *n: the room in values, then the count given. Collective.
@*/
PetscErrorCode MbsOptionsRealArray(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt ndefault, PetscReal values[], PetscInt *n, PetscBool *set)
{
  PetscFunctionBeginUser;
  PetscCall(MbsOptionsArray_Private(PetscOptionsObject, name, text, man, ndefault, values, NULL, n, set));
  PetscFunctionReturn(0);
}

/*@C
  MbsOptionsIntArray - Inside an options block: PetscOptionsIntArray(), whose -help line shows all ndefault values of
  the default in values[]. *n: the room in values, then the count given. Collective.
@*/
PetscErrorCode MbsOptionsIntArray(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], const char man[], PetscInt ndefault, PetscInt values[], PetscInt *n, PetscBool *set)
{
  PetscFunctionBeginUser;
  PetscCall(MbsOptionsArray_Private(PetscOptionsObject, name, text, man, ndefault, NULL, values, n, set));
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
  for (size_t i = 0; MBS_PETSC_VALUE_ERROR_NAMES_NO_OPTION && p == PETSC_ERROR_INITIAL && mess && i < PETSC_STATIC_ARRAY_LENGTH(prefixes) && !start; i++)
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
