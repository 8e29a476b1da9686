/*
  Checkpoint and restart of an identification (identify -checkpoint FILE, -restart FILE).

  A checkpoint is the log of every evaluation TAO asked for: the point (TAO's scaled variables), J, the gradient,
  whether the solve succeeded, and the wall time. A restart runs TAO again from the same start and serves each
  evaluation from the log, without solving, while TAO asks for the logged points bitwise. TAO is deterministic, so it
  passes through the same states as the first run, quasi-Newton memory and line searches included, and continues
  bitwise as the uninterrupted run would. This rebuilds TAO's state exactly for every -tao_type without reading its
  internals; replaying an evaluation costs microseconds.

  A checkpoint records what the numbers depend on: the model, the identified parameters, the options (all but those
  that only name files or control output, and TAO's iteration limits, which end TAO's path without changing it, so that
  a run that reached -tao_max_it continues with a higher one; MbsCheckpointIgnored), a checksum of each file it reads (measurements, model
  file, input forces) and J at the start, and a checksum of the log itself. A restart where any of these differs is refused, naming the difference. The number of ranks may differ:
  the results do not depend on it.

  A solver that keeps its state in a few numbers gives that state instead (MbsCheckpointSetState): Levenberg-Marquardt
  (-tao_type mbslm, tao_lm.c) saves x, f, g = J^T R, H = J^T J, its damping lambda and nu and its iteration count at
  every accepted iteration, and a restart continues from them without evaluating again, bitwise as the uninterrupted
  run; only the trial steps after that iteration are solved again. Its evaluations are not logged: replaying them would
  need every residual vector and Jacobian (37575 x 300 numbers each for the 300-parameter ring) where the state holds
  n^2 + n + 6.

  Rank 0 writes the file after every accepted iteration and when a stop is requested (SIGTERM, SIGUSR1, SIGINT;
  interrupt.c), through MbsH5Writer: temporary name, fsync, rename. A kill at any moment leaves the last complete
  checkpoint. Every rank reads the restart file: all need the log, and all come to the same verdict.
*/
#include "identification/identificationimpl.h"
#include <ctype.h>
#include <petsctime.h>

#define MBS_CHECKPOINT_FORMAT "mbsid identify checkpoint 3" /* 2: with log_checksum, 3: every input file's checksum */

/* Options that name files or control what is printed: the numbers do not depend on them */
static const char *const MbsCheckpointIgnored[] = {"-checkpoint", "-restart", "-o", "-help", "-log_view", "-log_view_memory", "-log_trace", "-options_left", "-options_view", "-malloc_dump", "-malloc_debug", "-malloc_test", "-unused_options_error", "-measurement_read_timeout", "-tao_max_it", "-tao_max_funcs", "-tao_monitor", "-tao_view", "-no_signal_handler", "-info"};

/* Appends "key value\n" to the growing text *all */
static PetscErrorCode MbsAppendLine_Private(char **all, size_t *len, const char key[], const char value[])
{
  size_t need = strlen(*all) + strlen(key) + strlen(value) + 3;

  PetscFunctionBeginUser;
  if (need > *len) {
    char *grown;

    *len = PetscMax(2 * *len, need);
    PetscCall(PetscMalloc1(*len, &grown));
    PetscCall(PetscStrcpy(grown, *all));
    PetscCall(PetscFree(*all));
    *all = grown;
  }
  PetscCall(PetscStrcat(*all, key));
  PetscCall(PetscStrcat(*all, " "));
  PetscCall(PetscStrcat(*all, value));
  PetscCall(PetscStrcat(*all, "\n"));
  PetscFunctionReturn(0);
}

/* The options the numbers depend on, one "-name value" line each, and one "-option path (checksum)" line per input file
   (measurements, model files, input forces, speed profiles: whatever the command declared it reads) */
static PetscErrorCode MbsCheckpointFingerprint_Private(MbsCheckpoint ck)
{
  char  *all, **tokens;
  int    ntokens;
  size_t len = 256;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(len, &ck->options));
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(PetscStrToArray(all, ' ', &ntokens, &tokens));
  for (int i = 0; i < ntokens; i++) {
    const char *value   = i + 1 < ntokens && !(tokens[i + 1][0] == '-' && isalpha((unsigned char)tokens[i + 1][1])) ? tokens[i + 1] : "";
    PetscBool   ignored = PETSC_FALSE;

    if (!(tokens[i][0] == '-' && isalpha((unsigned char)tokens[i][1]))) continue;
    for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(MbsCheckpointIgnored) && !ignored; k++) PetscCall(PetscStrcmp(tokens[i], MbsCheckpointIgnored[k], &ignored));
    if (!ignored) PetscCall(MbsAppendLine_Private(&ck->options, &len, tokens[i], value));
  }
  PetscCall(PetscStrToArrayDestroy(ntokens, tokens));
  PetscCall(PetscFree(all));

  len = 256;
  PetscCall(PetscCalloc1(len, &ck->inputs));
  for (PetscInt i = 0; i < MbsDeclaredFileCount(); i++) {
    const char        *option, *path;
    char               key[300], value[PETSC_MAX_PATH_LEN + 64];
    PetscBool          output, ignored = PETSC_FALSE;
    PetscInt           repeat = 1;
    unsigned long long hash;

    MbsDeclaredFileGet(i, &option, &path, &output);
    for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(MbsCheckpointIgnored) && !ignored; k++) PetscCall(PetscStrcmp(option, MbsCheckpointIgnored[k], &ignored));
    if (output || ignored) continue;
    for (PetscInt j = 0; j < i; j++) { /* experiments read their files under the same option */
      const char *other, *other_path;
      PetscBool   other_output, same;

      MbsDeclaredFileGet(j, &other, &other_path, &other_output);
      PetscCall(PetscStrcmp(option, other, &same));
      if (same && !other_output) repeat++;
    }
    if (repeat > 1) PetscCall(PetscSNPrintf(key, sizeof(key), "%s#%" PetscInt_FMT, option, repeat));
    else PetscCall(PetscStrncpy(key, option, sizeof(key)));
    PetscCall(MbsChecksumFile(option, path, &hash));
    PetscCall(PetscSNPrintf(value, sizeof(value), "%s (checksum %016llx)", path, hash));
    PetscCall(MbsAppendLine_Private(&ck->inputs, &len, key, value));
  }
  PetscFunctionReturn(0);
}

/*
  The checksum of the log of evaluations (x, J, gradient, ok, time, as doubles in that order): an edited or damaged
  log would otherwise be replayed silently, TAO taking its numbers for solves.
*/
static PetscErrorCode MbsCheckpointLogChecksum_Private(MbsCheckpoint ck, char text[], size_t size)
{
  size_t             n = (size_t)ck->n, nid = (size_t)ck->obj->nid;
  unsigned long long hash = MBS_CHECKSUM_START;

  PetscFunctionBeginUser;
  hash = MbsChecksumBytes(hash, ck->x, n * nid * sizeof(PetscReal));
  hash = MbsChecksumBytes(hash, ck->J, n * sizeof(PetscReal));
  hash = MbsChecksumBytes(hash, ck->g, n * nid * sizeof(PetscReal));
  hash = MbsChecksumBytes(hash, ck->ok, n * sizeof(PetscReal));
  hash = MbsChecksumBytes(hash, ck->time, n * sizeof(PetscReal));
  hash = MbsChecksumBytes(hash, ck->state, (size_t)ck->nstate * sizeof(PetscReal));
  PetscCall(PetscSNPrintf(text, size, "%016llx", hash));
  PetscFunctionReturn(0);
}

/* The value of the line with this key in "key value" lines, or NULL */
static const char *MbsFindLine_Private(const char text[], const char key[], size_t *value_len)
{
  size_t key_len = strlen(key);

  for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (!strncmp(line, key, key_len) && line[key_len] == ' ') {
      *value_len = strcspn(line + key_len + 1, "\n");
      return line + key_len + 1;
    }
  }
  return NULL;
}

/* The first difference between two sets of "key value" lines, as a sentence; "" when they agree */
static PetscErrorCode MbsCompareLines_Private(const char what[], const char saved[], const char now[], char difference[], size_t size)
{
  const char *texts[2] = {saved, now};

  PetscFunctionBeginUser;
  difference[0] = 0;
  for (int side = 0; side < 2 && !difference[0]; side++) {
    for (const char *line = texts[side]; *line && !difference[0]; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] ? 1 : 0)) {
      char        key[256];
      size_t      key_len = strcspn(line, " \n"), mine_len, other_len;
      const char *mine    = line + key_len + (line[key_len] == ' ' ? 1 : 0), *other; /* a line of a damaged file may have no value */

      mine_len = strcspn(mine, "\n");
      key_len  = PetscMin(key_len, sizeof(key) - 1);
      PetscCall(PetscStrncpy(key, line, key_len + 1));
      other = MbsFindLine_Private(texts[1 - side], key, &other_len);
      if (!other) PetscCall(PetscSNPrintf(difference, size, "%s %s %.*s is %s only", what, key, (int)mine_len, mine, side == 0 ? "in the checkpoint" : "in this run"));
      else if (side == 0 && (mine_len != other_len || strncmp(mine, other, mine_len))) PetscCall(PetscSNPrintf(difference, size, "%s %s: the checkpoint has %.*s, this run %.*s", what, key, (int)mine_len, mine, (int)other_len, other));
    }
  }
  PetscFunctionReturn(0);
}

/* The identified parameters' names, comma-separated, in a string the caller frees: sized to the names, as no fixed
   buffer holds those of a large model (300 names of 4 characters overflow 1024) */
static PetscErrorCode MbsCheckpointParameterNames_Private(MbsObjective obj, char **names)
{
  size_t size = 1, len;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < obj->nid; k++) {
    PetscCall(PetscStrlen(obj->model->param_info[obj->id[k]].name, &len));
    size += len + 1;
  }
  PetscCall(PetscMalloc1(size, names));
  (*names)[0] = 0;
  for (PetscInt k = 0; k < obj->nid; k++) {
    if (k) PetscCall(MbsStrlcat(*names, ",", size));
    PetscCall(MbsStrlcat(*names, obj->model->param_info[obj->id[k]].name, size));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckpointGrow_Private(MbsCheckpoint ck, PetscInt n)
{
  PetscInt   nid = ck->obj->nid;
  PetscReal *x, *J, *g, *ok, *time;

  PetscFunctionBeginUser;
  if (n <= ck->nalloc) PetscFunctionReturn(0);
  ck->nalloc = PetscMax(n, PetscMax(32, 2 * ck->nalloc));
  PetscCall(PetscMalloc5(ck->nalloc * nid, &x, ck->nalloc, &J, ck->nalloc * nid, &g, ck->nalloc, &ok, ck->nalloc, &time));
  PetscCall(PetscArraycpy(x, ck->x, ck->n * nid));
  PetscCall(PetscArraycpy(J, ck->J, ck->n));
  PetscCall(PetscArraycpy(g, ck->g, ck->n * nid));
  PetscCall(PetscArraycpy(ok, ck->ok, ck->n));
  PetscCall(PetscArraycpy(time, ck->time, ck->n));
  PetscCall(PetscFree5(ck->x, ck->J, ck->g, ck->ok, ck->time));
  ck->x    = x;
  ck->J    = J;
  ck->g    = g;
  ck->ok   = ok;
  ck->time = time;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckpointCopyLog_Private(MbsCheckpoint ck, const char path[], PetscInt rows, PetscInt cols, const PetscInt dims[2], const PetscReal data[], PetscReal dest[])
{
  PetscFunctionBeginUser;
  PetscCheck(dims[0] == rows && dims[1] == cols, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint '%s': dataset '%s' has %" PetscInt_FMT " x %" PetscInt_FMT " values, expected %" PetscInt_FMT " x %" PetscInt_FMT " (a damaged checkpoint?)", ck->restart, path, dims[0], dims[1], rows, cols);
  PetscCall(PetscArraycpy(dest, data, rows * cols));
  PetscFunctionReturn(0);
}

/* A log dataset of the restart file, with the length it must have (rows x cols) */
static PetscErrorCode MbsCheckpointReadLog_Private(MbsCheckpoint ck, hid_t file, const char path[], PetscInt rows, PetscInt cols, PetscReal dest[])
{
  PetscInt   dims[2] = {0, 1};
  PetscReal *data;

  PetscFunctionBeginUser;
  PetscCall(MbsH5ReadReals(file, ck->restart, path, cols > 1 ? 2 : 1, dims, &data, NULL, NULL));
  MbsCallCleanup(MbsCheckpointCopyLog_Private(ck, path, rows, cols, dims, data, dest), PetscFree(data));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckpointCompareNames_Private(MbsCheckpoint ck, const char saved[], const char names[])
{
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(saved, names, &same));
  PetscCheck(same, ck->obj->comm, PETSC_ERR_ARG_INCOMP, "Checkpoint '%s' identifies %s; this run identifies %s", ck->restart, saved, names);
  PetscFunctionReturn(0);
}

/* The identified parameters and the fingerprints (options and input files) of the restart file against this run's,
   each read into saved[len] */
static PetscErrorCode MbsCheckpointCompareProblem_Private(MbsCheckpoint ck, hid_t file, char saved[], size_t len)
{
  const char *what[2] = {"option", "input file"};
  char        difference[2048], *names;

  PetscFunctionBeginUser;
  PetscCall(MbsH5ReadAttribute(file, ck->restart, "/", "parameters", saved, len, NULL));
  PetscCall(MbsCheckpointParameterNames_Private(ck->obj, &names));
  MbsCallCleanup(MbsCheckpointCompareNames_Private(ck, saved, names), PetscFree(names));
  for (int i = 0; i < 2; i++) {
    PetscCall(MbsH5ReadAttribute(file, ck->restart, "/", i == 0 ? "fingerprint_options" : "fingerprint_inputs", saved, len, NULL));
    PetscCall(MbsCompareLines_Private(what[i], saved, i == 0 ? ck->options : ck->inputs, difference, sizeof(difference)));
    PetscCheck(!difference[0], ck->obj->comm, PETSC_ERR_ARG_INCOMP, "Checkpoint '%s' was made for another problem: %s", ck->restart, difference);
  }
  PetscFunctionReturn(0);
}

/* The log of evaluations of the restart file, whose length is that of /evaluations/J */
static PetscErrorCode MbsCheckpointReadEvaluations_Private(MbsCheckpoint ck, hid_t file, const PetscReal J[], PetscInt n)
{
  PetscInt nid = ck->obj->nid;

  PetscFunctionBeginUser;
  PetscCall(MbsCheckpointGrow_Private(ck, n));
  PetscCall(PetscArraycpy(ck->J, J, n));
  PetscCall(MbsCheckpointReadLog_Private(ck, file, "/evaluations/x", n, nid, ck->x));
  PetscCall(MbsCheckpointReadLog_Private(ck, file, "/evaluations/gradient", n, nid, ck->g));
  PetscCall(MbsCheckpointReadLog_Private(ck, file, "/evaluations/ok", n, 1, ck->ok));
  PetscCall(MbsCheckpointReadLog_Private(ck, file, "/evaluations/time", n, 1, ck->time));
  ck->n = ck->nreplay = n;
  PetscFunctionReturn(0);
}

/* Reads the open restart file and refuses it when it was made for another problem */
static PetscErrorCode MbsCheckpointReadFile_Private(MbsCheckpoint ck, hid_t file)
{
  MbsObjective obj  = ck->obj;
  MPI_Comm     comm = obj->comm;
  char         format[64], model[64], checksum[32], saved_checksum[32], *saved;
  const char  *plane;
  PetscInt     dims[1];
  PetscReal   *J0, *J;
  PetscBool    found;
  size_t       len = 1 << 20;

  PetscFunctionBeginUser;
  PetscCall(MbsH5ReadAttribute(file, ck->restart, "/", "checkpoint_format", format, sizeof(format), &found));
  PetscCheck(found, comm, PETSC_ERR_FILE_UNEXPECTED, "File '%s' (-restart) is not an identification checkpoint (no attribute checkpoint_format); write one with identify -checkpoint FILE", ck->restart);
  PetscCall(PetscStrcmp(format, MBS_CHECKPOINT_FORMAT, &found));
  PetscCheck(found, comm, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint '%s' has format '%s'; this mbsid reads '%s'", ck->restart, format, MBS_CHECKPOINT_FORMAT);
  PetscCall(MbsH5ReadAttribute(file, ck->restart, "/", "model", model, sizeof(model), NULL));
  PetscCall(PetscStrcmp(model, obj->model->type, &found));
  PetscCheck(found, comm, PETSC_ERR_ARG_INCOMP, "Checkpoint '%s' is of model %s; this run identifies model %s", ck->restart, model, obj->model->type);
  PetscCall(MbsModelGetPlanar(obj->model, &plane));
  if (plane) { /* the same file runs planar or in 3D (its planar:, -model_planar): other unknowns */
    char      planar[16];
    PetscBool same = PETSC_TRUE;

    PetscCall(MbsH5ReadAttribute(file, ck->restart, "/", "planar", planar, sizeof(planar), &found));
    if (found) PetscCall(PetscStrcmp(planar, plane, &same)); /* a checkpoint from before planar models has none */
    PetscCheck(same, comm, PETSC_ERR_ARG_INCOMP, "Checkpoint '%s' ran the model file with planar: %s (attribute planar); this run has planar: %s (the file's planar:, -model_planar)", ck->restart, planar, plane);
  }
  PetscCall(PetscMalloc1(len, &saved));
  MbsCallCleanup(MbsCheckpointCompareProblem_Private(ck, file, saved, len), PetscFree(saved));
  PetscCall(MbsH5ReadReals(file, ck->restart, "/checkpoint/J0", 1, dims, &J0, NULL, NULL));
  ck->J0_saved = J0[0];
  PetscCall(PetscFree(J0));
  PetscCall(MbsH5ReadReals(file, ck->restart, "/checkpoint/state", 1, dims, &ck->state, NULL, &found));
  if (found) {
    PetscReal *time;

    ck->nstate = dims[0];
    PetscCall(MbsH5ReadReals(file, ck->restart, "/checkpoint/state_time", 1, dims, &time, "s", NULL));
    ck->state_time = ck->offset = time[0];
    PetscCall(PetscFree(time));
  }
  PetscCall(MbsH5ReadReals(file, ck->restart, "/evaluations/J", 1, dims, &J, NULL, ck->nstate ? &found : NULL));
  if (J) MbsCallCleanup(MbsCheckpointReadEvaluations_Private(ck, file, J, dims[0]), PetscFree(J));
  PetscCall(MbsH5ReadAttribute(file, ck->restart, "/", "log_checksum", saved_checksum, sizeof(saved_checksum), NULL));
  PetscCall(MbsCheckpointLogChecksum_Private(ck, checksum, sizeof(checksum)));
  PetscCall(PetscStrcmp(saved_checksum, checksum, &found));
  PetscCheck(found, comm, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint '%s': %s does not match its checksum (log_checksum %s, the log gives %s): the file was edited or damaged; restart from an untouched checkpoint, or start afresh without -restart", ck->restart, ck->n ? "the log /evaluations" : "the state /checkpoint/state", saved_checksum, checksum);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckpointClose_Private(MbsCheckpoint ck, hid_t file)
{
  PetscFunctionBeginUser;
  MbsCallHDF5(H5Fclose(file), ck->restart, "/");
  PetscFunctionReturn(0);
}

/* Reads the restart file and refuses it when it was made for another problem */
static PetscErrorCode MbsCheckpointRead_Private(MbsCheckpoint ck)
{
  hid_t file;

  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  file = H5Fopen(ck->restart, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(file >= 0, ck->obj->comm, PETSC_ERR_FILE_OPEN, "Cannot open the checkpoint '%s' (-restart): missing, unreadable or not HDF5", ck->restart);
  MbsCallCleanup(MbsCheckpointReadFile_Private(ck, file), MbsCheckpointClose_Private(ck, file));
  PetscFunctionReturn(0);
}

/*
  Before a restart, rank 0 (the writer of checkpoints) removes the temporary checkpoints a killed run left beside the
  restart file and the checkpoint to write. A rank of the stopped run that still lives may yet rename its temporary
  file over the restart file: the restart is refused until that run has ended.
*/
static PetscErrorCode MbsCheckpointRemoveStale_Private(MbsCheckpoint ck)
{
  PetscMPIInt rank;
  long        live_writer[2] = {0, 0};
  const char *names[2]       = {ck->restart, ck->path};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(ck->obj->comm, &rank));
  if (rank == 0) {
    PetscBool same;

    PetscCall(PetscStrcmp(ck->restart, ck->path, &same));
    for (int i = 0; i < (same ? 1 : 2); i++) PetscCall(MbsH5WriterRemoveStale(names[i], &live_writer[i]));
  }
  PetscCallMPI(MPI_Bcast(live_writer, 2, MPI_LONG, 0, ck->obj->comm));
  for (int i = 0; i < 2; i++)
    PetscCheck(!live_writer[i], ck->obj->comm, PETSC_ERR_ARG_WRONGSTATE, "Checkpoint '%s' is still being written by process %ld ('%s.tmp.%ld'), a rank of the run that was stopped: wait until that run has ended (or kill it) before -restart", names[i], live_writer[i], names[i], live_writer[i]);
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointCreate - Reads -checkpoint and -restart; with -restart, reads the log and checks that it belongs to this
  problem; with a checkpoint to write, catches stop requests. 'history' (may be NULL) adds the iteration history
  to each checkpoint written. Collective.
@*/
PetscErrorCode MbsCheckpointCreate(MbsObjective obj, MbsObjectiveWriteFn history, void *history_ctx, MbsCheckpoint *checkpoint)
{
  MbsCheckpoint ck;
  PetscBool     write_set, help;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ck));
  *checkpoint     = ck;
  ck->obj         = obj;
  ck->history     = history;
  ck->history_ctx = history_ctx;
  MbsOptionsBegin(obj->comm, NULL, "Checkpoint and restart", "identify");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-checkpoint", "Checkpoint file (HDF5), rewritten after every iteration and on SIGTERM/SIGUSR1/SIGINT (default: the -restart file, else none)", ck->path, sizeof(ck->path)));
  write_set = (PetscBool)(ck->path[0] != 0);
  PetscCall(PetscOptionsString("-restart", "Continue the identification saved in this checkpoint file (default: start afresh)", "", ck->restart, ck->restart, sizeof(ck->restart), NULL));
  PetscCall(MbsFileDeclare(obj->comm, "-restart", ck->restart, PETSC_FALSE, "-checkpoint")); /* a checkpoint may be rewritten in place of its restart file */
  MbsOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) PetscFunctionReturn(0);
  if (!write_set && ck->restart[0]) PetscCall(PetscStrncpy(ck->path, ck->restart, sizeof(ck->path)));
  if (!ck->path[0] && !ck->restart[0]) PetscFunctionReturn(0);
  PetscCall(MbsCheckpointFingerprint_Private(ck));
  if (ck->restart[0]) {
    PetscCall(MbsCheckpointRemoveStale_Private(ck));
    PetscCall(MbsCheckpointRead_Private(ck));
  }
  if (ck->path[0]) PetscCall(MbsInterruptCatch(PETSC_TRUE));
  ck->catching = (PetscBool)(ck->path[0] != 0);
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointStart - Takes J at the start (a restart refuses a checkpoint whose J0 differs) and starts the clock. Collective.
@*/
PetscErrorCode MbsCheckpointStart(MbsCheckpoint ck, PetscReal J0)
{
  PetscFunctionBeginUser;
  PetscCheck(!ck->restart[0] || J0 == ck->J0_saved, ck->obj->comm, PETSC_ERR_ARG_INCOMP, "Checkpoint '%s' was made for another problem: J at the start is %.17g there, %.17g in this run (another build of mbsid, or input the checkpoint does not record)", ck->restart,
             (double)ck->J0_saved, (double)J0);
  ck->J0 = J0;
  PetscCall(PetscTime(&ck->start));
  if (ck->nreplay) PetscCall(PetscPrintf(ck->obj->comm, "Restart from '%s': %" PetscInt_FMT " evaluations are replayed from it without solving\n", ck->restart, ck->nreplay));
  PetscFunctionReturn(0);
}

/*
  MbsCheckpointGetCounts - The evaluations logged so far and those a restart replays (either may be NULL). Not
  collective.
*/
PetscErrorCode MbsCheckpointGetCounts(MbsCheckpoint ck, PetscInt *logged, PetscInt *replayed)
{
  PetscFunctionBeginUser;
  if (logged) *logged = ck->n;
  if (replayed) *replayed = ck->nreplay;
  PetscFunctionReturn(0);
}

/*
  MbsCheckpointGetFiles - The checkpoint file written and the restart file read ("" for none; either may be NULL). Not
  collective.
*/
PetscErrorCode MbsCheckpointGetFiles(MbsCheckpoint ck, const char **path, const char **restart)
{
  PetscFunctionBeginUser;
  if (path) *path = ck->path;
  if (restart) *restart = ck->restart;
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointElapsed - Wall time of the identification so far, across restarts [s]. Not collective.
@*/
PetscErrorCode MbsCheckpointElapsed(MbsCheckpoint ck, PetscReal *elapsed)
{
  PetscLogDouble now;

  PetscFunctionBeginUser;
  if (ck->next <= ck->nreplay && ck->next > 0) {
    *elapsed = ck->time[ck->next - 1];
    PetscFunctionReturn(0);
  }
  PetscCall(PetscTime(&now));
  *elapsed = ck->offset + (PetscReal)(now - ck->start);
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointStopIfRequested - With a checkpoint to write, stops the run if a stop was requested on any rank: writes
  the checkpoint and returns MBS_ERR_INTERRUPTED. Call it before each evaluation. Collective.
@*/
PetscErrorCode MbsCheckpointStopIfRequested(MbsCheckpoint ck)
{
  int  signal;
  char status[64];

  PetscFunctionBeginUser;
  if (!ck->path[0]) PetscFunctionReturn(0);
  PetscCall(MbsInterruptRequested(ck->obj->comm, &signal));
  if (!signal) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(status, sizeof(status), "stopped by %s", MbsInterruptSignalName(signal)));
  PetscCall(MbsCheckpointWrite(ck, status));
  SETERRQ(ck->obj->comm, MBS_ERR_INTERRUPTED, "Stopped by %s", MbsInterruptSignalName(signal));
}

/*@C
  MbsCheckpointReplay - Serves the next evaluation from the restart log (*replayed = PETSC_TRUE) when there is one;
  otherwise stops the run if a stop was requested (MbsCheckpointStopIfRequested). Collective.
@*/
PetscErrorCode MbsCheckpointReplay(MbsCheckpoint ck, const PetscScalar x[], PetscReal *J, PetscReal g[], PetscBool *ok, PetscBool *replayed)
{
  PetscInt nid = ck->obj->nid, i = ck->next;

  PetscFunctionBeginUser;
  *replayed = (PetscBool)(i < ck->nreplay);
  if (*replayed) {
    for (PetscInt k = 0; k < nid; k++)
      PetscCheck(x[k] == ck->x[i * nid + k], ck->obj->comm, PETSC_ERR_PLIB, "Restart from '%s' left its path at evaluation %" PetscInt_FMT ": TAO asks for x[%" PetscInt_FMT "] = %.17g, the checkpoint has %.17g (another build of mbsid or of PETSc?)", ck->restart, i, k, (double)x[k],
                 (double)ck->x[i * nid + k]);
    *J  = ck->J[i];
    *ok = (PetscBool)(ck->ok[i] != 0);
    PetscCall(PetscArraycpy(g, &ck->g[i * nid], nid));
    ck->next++;
    if (ck->next == ck->nreplay) {
      ck->offset = ck->time[i];
      PetscCall(PetscTime(&ck->start));
      PetscCall(PetscPrintf(ck->obj->comm, "Restart: the %" PetscInt_FMT " evaluations of the checkpoint are replayed; solving again from here\n", ck->nreplay));
    }
    PetscFunctionReturn(0);
  }
  PetscCall(MbsCheckpointStopIfRequested(ck));
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointSetState - The solver's state (n numbers, copied) that the next checkpoint holds instead of a log of
  evaluations. Not collective.
@*/
PetscErrorCode MbsCheckpointSetState(MbsCheckpoint ck, PetscInt n, const PetscReal state[])
{
  PetscFunctionBeginUser;
  if (n != ck->nstate) {
    PetscCall(PetscFree(ck->state));
    PetscCall(PetscMalloc1(n, &ck->state));
    ck->nstate = n;
  }
  PetscCall(PetscArraycpy(ck->state, state, n));
  PetscCall(MbsCheckpointElapsed(ck, &ck->state_time));
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointGetState - The solver's state of the restart file (*n = 0 and NULL when it has none), owned by the
  checkpoint. Not collective.
@*/
PetscErrorCode MbsCheckpointGetState(MbsCheckpoint ck, PetscInt *n, const PetscReal **state)
{
  PetscFunctionBeginUser;
  *n     = ck->restart[0] ? ck->nstate : 0;
  *state = *n ? ck->state : NULL;
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointRestartFree - Frees n datasets read by MbsCheckpointReadRestart(). Not collective.
@*/
PetscErrorCode MbsCheckpointRestartFree(PetscInt n, PetscReal *data[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscFree(data[i]));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckpointReadDatasets_Private(MbsCheckpoint ck, hid_t file, PetscInt n, const char *const path[], const PetscInt rank[], PetscInt dims[], PetscReal *data[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) MbsCallUndo(MbsH5ReadReals(file, ck->restart, path[i], rank[i], dims + 2 * i, &data[i], NULL, NULL), MbsCheckpointRestartFree(i, data));
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointReadRestart - n datasets path[i] of the restart file, of rank rank[i] (1 or 2, sizes in dims[2 i],
  dims[2 i + 1]), read in one opening of the file and allocated for the caller to free (none on an error). Not
  collective.
@*/
PetscErrorCode MbsCheckpointReadRestart(MbsCheckpoint ck, PetscInt n, const char *const path[], const PetscInt rank[], PetscInt dims[], PetscReal *data[])
{
  hid_t file;

  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  file = H5Fopen(ck->restart, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open the checkpoint '%s' (-restart) again", ck->restart);
  MbsCallCleanup(MbsCheckpointReadDatasets_Private(ck, file, n, path, rank, dims, data), MbsCheckpointClose_Private(ck, file));
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointRecord - Adds an evaluation that was computed to the log. Not collective.
@*/
PetscErrorCode MbsCheckpointRecord(MbsCheckpoint ck, const PetscScalar x[], PetscReal J, const PetscReal g[], PetscBool ok)
{
  PetscInt nid = ck->obj->nid, i = ck->n;

  PetscFunctionBeginUser;
  PetscCall(MbsCheckpointGrow_Private(ck, i + 1));
  for (PetscInt k = 0; k < nid; k++) ck->x[i * nid + k] = PetscRealPart(x[k]);
  ck->J[i]  = J;
  ck->ok[i] = ok ? 1 : 0;
  PetscCall(PetscArraycpy(&ck->g[i * nid], g, nid));
  PetscCall(MbsCheckpointElapsed(ck, &ck->time[i]));
  ck->n++;
  ck->next++;
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointWrite - Rank 0 writes the checkpoint (when there is one to write and the log is not only replayed);
  'status' says when: after an accepted iteration, or stopped by a signal. Collective.
@*/
PetscErrorCode MbsCheckpointWrite(MbsCheckpoint ck, const char status[])
{
  MbsObjective obj = ck->obj;
  MbsH5Writer  writer;
  PetscMPIInt  rank;
  PetscInt     dims[2] = {ck->n, obj->nid};
  char        *names, checksum[32];

  PetscFunctionBeginUser;
  if (!ck->path[0] || (ck->n == 0 && !ck->nstate) || ck->next < ck->nreplay) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  if (rank == 0) {
    PetscCall(MbsH5WriterOpen(ck->path, &writer));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "checkpoint_format", MBS_CHECKPOINT_FORMAT));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "status", status));
    PetscCall(MbsModelWriteIdentity(obj->model, &writer, "/"));
    PetscCall(MbsCheckpointParameterNames_Private(obj, &names));
    MbsCallCleanup(MbsH5WriteAttribute(&writer, "/", "parameters", names), PetscFree(names));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "fingerprint_options", ck->options));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "fingerprint_inputs", ck->inputs));
    PetscCall(MbsH5WriteProvenance(&writer, obj->comm));
    PetscCall(MbsH5WriteReals(&writer, "/checkpoint/J0", 1, (PetscInt[]){1}, &ck->J0, "cost"));
    if (ck->n) {
      PetscCall(MbsH5WriteReals(&writer, "/evaluations/x", 2, dims, ck->x, "TAO's scaled variables"));
      PetscCall(MbsH5WriteReals(&writer, "/evaluations/J", 1, dims, ck->J, "cost"));
      PetscCall(MbsH5WriteReals(&writer, "/evaluations/gradient", 2, dims, ck->g, "cost per parameter unit"));
      PetscCall(MbsH5WriteReals(&writer, "/evaluations/ok", 1, dims, ck->ok, "1: solved, 0: the solve failed"));
      PetscCall(MbsH5WriteReals(&writer, "/evaluations/time", 1, dims, ck->time, "s"));
    }
    if (ck->nstate) {
      PetscCall(MbsH5WriteReals(&writer, "/checkpoint/state", 1, &ck->nstate, ck->state, "the solver's (TaoMbsLMGetState)"));
      PetscCall(MbsH5WriteReals(&writer, "/checkpoint/state_time", 1, (PetscInt[]){1}, &ck->state_time, "s"));
    }
    PetscCall(MbsCheckpointLogChecksum_Private(ck, checksum, sizeof(checksum)));
    PetscCall(MbsH5WriteAttribute(&writer, "/", "log_checksum", checksum));
    if (ck->history) PetscCall(ck->history(obj, &writer, ck->history_ctx));
    PetscCall(MbsH5WriterClose(&writer));
  }
  PetscCallMPI(MPI_Barrier(obj->comm));
  PetscFunctionReturn(0);
}

/*@C
  MbsCheckpointDestroy - Frees the log and ends catching stop requests. Not collective.
@*/
PetscErrorCode MbsCheckpointDestroy(MbsCheckpoint *checkpoint)
{
  MbsCheckpoint ck = *checkpoint;

  PetscFunctionBeginUser;
  if (!ck) PetscFunctionReturn(0);
  if (ck->catching) PetscCall(MbsInterruptCatch(PETSC_FALSE));
  PetscCall(PetscFree5(ck->x, ck->J, ck->g, ck->ok, ck->time));
  PetscCall(PetscFree(ck->state));
  PetscCall(PetscFree(ck->options));
  PetscCall(PetscFree(ck->inputs));
  PetscCall(PetscFree(ck));
  *checkpoint = NULL;
  PetscFunctionReturn(0);
}
