/*
  HDF5 helpers. Results are built in memory (HDF5's core driver), written to "<name>.tmp.<pid>" with write(2),
  flushed to the disk (fsync) and renamed to <name> on close, so a crash or a kill, even of the machine, never
  leaves a half-written file under the user's name and never overwrites a good one in place. As mbsid writes the
  bytes itself, a full disk is one error naming the errno, and libhdf5 never holds a file it cannot flush (it
  crashes on such a file when MPI is finalised). Every HDF5 failure becomes a PETSc error naming the file and the
  object; HDF5's own error stack printing is switched off so the user sees one clear message. Text results
  (MbsFileWrite) take the same way.
*/
#define _POSIX_C_SOURCE 200809L /* fsync, O_DIRECTORY: mbsid builds as strict C17 */
#include "mbsidimpl.h"
#include <slepcsys.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "util/mbsid_git.h" /* MBSID_GIT_COMMIT, MBSID_GIT_DIRTY: generated at build time (cmake/git_provenance.cmake) */

static hid_t MbsH5LinkCreationProperties_Private(void)
{
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);

  if (lcpl >= 0 && H5Pset_create_intermediate_group(lcpl, 1) < 0) {
    H5Pclose(lcpl);
    return -1;
  }
  return lcpl;
}

static hid_t MbsH5StringType_Private(void)
{
  hid_t type = H5Tcopy(H5T_C_S1);

  if (type >= 0 && (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0)) {
    H5Tclose(type);
    return -1;
  }
  return type;
}

/*
  Temporary files of writers not closed yet: removed when the process exits, and by MbsH5WritersAbandon after an
  error (an abort of the other ranks skips atexit), so that a run that fails while writing leaves no
  NAME.tmp.<pid> behind.
*/
#define MBS_PENDING_MAX 4
static char MbsPendingTmp[MBS_PENDING_MAX][PETSC_MAX_PATH_LEN];

/*@C
  MbsH5WritersAbandon - After an error: removes the temporary files of the writers not closed yet. Call before MPI is
  finalised or aborted. Not collective.
@*/
void MbsH5WritersAbandon(void)
{
  for (int i = 0; i < MBS_PENDING_MAX; i++)
    if (MbsPendingTmp[i][0]) (void)unlink(MbsPendingTmp[i]);
}

static PetscErrorCode MbsPendingTmpSet_Private(const char old[], const char new_path[])
{
  static PetscBool registered = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (!registered) {
    PetscCheck(atexit(MbsH5WritersAbandon) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Cannot register the removal of temporary result files");
    registered = PETSC_TRUE;
  }
  for (int i = 0; i < MBS_PENDING_MAX; i++) {
    PetscBool match;

    PetscCall(PetscStrcmp(MbsPendingTmp[i], old, &match));
    if (match) {
      PetscCall(PetscStrncpy(MbsPendingTmp[i], new_path, sizeof(MbsPendingTmp[i])));
      PetscFunctionReturn(0);
    }
  }
  if (!new_path[0]) PetscFunctionReturn(0); /* not ours: another rank created it */
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d result files open at once", MBS_PENDING_MAX);
}

/* File access in memory: the core driver without a backing store (writes 1 MB at a time) */
static hid_t MbsH5MemoryAccess_Private(void)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);

  if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) < 0) {
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

/* Writes size bytes to a new file at path and flushes it to the disk; 0 or the errno of the failure */
static int MbsWriteBytes_Private(const char path[], const char *bytes, size_t size)
{
  int    fd   = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666), error;
  size_t done = 0;

  if (fd < 0) return errno;
  while (done < size) {
    ssize_t n = write(fd, bytes + done, size - done);

    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      (void)close(fd);
      return error;
    }
    done += (size_t)n;
  }
  if (fsync(fd) != 0) {
    error = errno;
    (void)close(fd);
    return error;
  }
  return close(fd) == 0 ? 0 : errno;
}

/* Writes the writer's file, built in memory, to its temporary file on the disk */
static PetscErrorCode MbsH5WriterStore_Private(MbsH5Writer *writer)
{
  ssize_t size;
  char   *image;
  int     error;

  PetscFunctionBeginUser;
  MbsCallHDF5(H5Fflush(writer->file, H5F_SCOPE_GLOBAL), writer->tmp_path, "/");
  size = H5Fget_file_image(writer->file, NULL, 0);
  MbsCallHDF5(size, writer->tmp_path, "/");
  PetscCall(PetscMalloc1((size_t)size, &image));
  if (H5Fget_file_image(writer->file, image, (size_t)size) < 0) {
    PetscCall(PetscFree(image));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "HDF5 cannot give the image of file '%s'", writer->tmp_path);
  }
  error = MbsWriteBytes_Private(writer->tmp_path, image, (size_t)size);
  PetscCall(PetscFree(image));
  PetscCheck(!error, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write '%s' (%.3g MB, for '%s'): %s", writer->tmp_path, (double)size / 1e6, writer->path, strerror(error));
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriterOpen - Starts the result 'path', built in memory until it is stored under a temporary name. Not
  collective: call on the writing rank only.
@*/
PetscErrorCode MbsH5WriterOpen(const char path[], MbsH5Writer *writer)
{
  hid_t fapl = MbsH5MemoryAccess_Private();

  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  PetscCall(PetscMemzero(writer, sizeof(*writer)));
  PetscCall(PetscStrncpy(writer->path, path, sizeof(writer->path)));
  PetscCall(PetscSNPrintf(writer->tmp_path, sizeof(writer->tmp_path), "%s.tmp.%d", path, (int)getpid()));
  MbsCallHDF5(fapl, writer->tmp_path, "/");
  writer->file = H5Fcreate(writer->tmp_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  MbsCallHDF5(H5Pclose(fapl), writer->tmp_path, "/");
  PetscCheck(writer->file >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Cannot create HDF5 file '%s' (for '%s') in memory", writer->tmp_path, path);
  PetscCall(MbsPendingTmpSet_Private("", writer->tmp_path));
  PetscFunctionReturn(0);
}

/* Whether process 'pid' of this host runs the same executable as this process (a rank of an earlier mbsid run) */
static PetscBool MbsProcessIsMbsid_Private(long pid)
{
  char    link[64], exe[PETSC_MAX_PATH_LEN], self[PETSC_MAX_PATH_LEN];
  ssize_t len, self_len;

  (void)snprintf(link, sizeof(link), "/proc/%ld/exe", pid);
  len      = readlink(link, exe, sizeof(exe) - 1);
  self_len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  /* without /proc the process cannot be told from another program that got its pid: take it for a writer */
  if (len < 0 || self_len < 0) return (PetscBool)(errno != ENOENT);
  exe[len]       = 0;
  self[self_len] = 0;
  return (PetscBool)(strcmp(exe, self) == 0);
}

/*@C
  MbsH5WriterRemoveStale - Removes the temporary files "<path>.tmp.<pid>" whose writer is gone: a process killed while
  it wrote them (SIGKILL, a node failure, a time limit without grace) cannot remove them itself. A file whose writer
  still runs on this host, an mbsid process, is left alone and its pid returned in *live_writer (0: none), so that the
  caller can refuse to read 'path' while it is being replaced. Pids are only checked on this host: a file written on
  another node is taken as stale. Not collective.
@*/
PetscErrorCode MbsH5WriterRemoveStale(const char path[], long *live_writer)
{
  char           directory[PETSC_MAX_PATH_LEN], base[PETSC_MAX_PATH_LEN], prefix[PETSC_MAX_PATH_LEN + 8];
  size_t         prefix_len;
  DIR           *dir;
  struct dirent *entry;

  PetscFunctionBeginUser;
  *live_writer = 0;
  PetscCall(PetscStrncpy(directory, path, sizeof(directory)));
  PetscCall(PetscStrncpy(base, path, sizeof(base)));
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s.tmp.", basename(base)));
  PetscCall(PetscStrlen(prefix, &prefix_len));
  dir = opendir(dirname(directory));
  if (!dir) PetscFunctionReturn(0); /* an unreadable directory: the caller's own open names the problem */
  while ((entry = readdir(dir))) {
    char  stale[PETSC_MAX_PATH_LEN + 32], *end;
    long  pid;
    pid_t self = getpid();

    if (strncmp(entry->d_name, prefix, prefix_len)) continue;
    errno = 0;
    pid   = strtol(entry->d_name + prefix_len, &end, 10);
    if (errno || *end || end == entry->d_name + prefix_len || pid <= 0 || pid == (long)self) continue;
    if ((kill((pid_t)pid, 0) == 0 || errno == EPERM) && MbsProcessIsMbsid_Private(pid)) {
      *live_writer = pid;
      continue;
    }
    PetscCall(PetscSNPrintf(stale, sizeof(stale), "%s.tmp.%ld", path, pid));
    PetscCheck(unlink(stale) == 0 || errno == ENOENT, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot remove '%s', a temporary file left by process %ld: %s", stale, pid, strerror(errno));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Removed '%s': a temporary file of process %ld, which ended before it renamed the file to '%s'\n", stale, pid, path));
  }
  PetscCheck(closedir(dir) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot close the directory of '%s'", path);
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriterSuspend - Stores the file under its temporary name and closes it, so that another rank can add to it.
  Not collective.
@*/
PetscErrorCode MbsH5WriterSuspend(MbsH5Writer *writer)
{
  PetscFunctionBeginUser;
  PetscCall(MbsH5WriterStore_Private(writer));
  MbsCallHDF5(H5Fclose(writer->file), writer->tmp_path, "/");
  writer->file = -1;
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriterResume - Reads the temporary file of a writer (opened on any rank) into memory to add to it. Not
  collective.
@*/
PetscErrorCode MbsH5WriterResume(MbsH5Writer *writer)
{
  hid_t fapl = MbsH5MemoryAccess_Private();

  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  MbsCallHDF5(fapl, writer->tmp_path, "/");
  writer->file = H5Fopen(writer->tmp_path, H5F_ACC_RDWR, fapl);
  MbsCallHDF5(H5Pclose(fapl), writer->tmp_path, "/");
  PetscCheck(writer->file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot reopen HDF5 file '%s' (for '%s')", writer->tmp_path, writer->path);
  PetscFunctionReturn(0);
}

/* The full path of an object relative to the writer's base group */
static PetscErrorCode MbsH5FullPath_Private(MbsH5Writer *writer, const char path[], char full[], size_t len)
{
  PetscBool root;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(path, "/", &root));
  if (writer->base[0]) PetscCall(PetscSNPrintf(full, len, "%s%s", writer->base, root ? "" : path));
  else PetscCall(PetscStrncpy(full, path, len));
  PetscFunctionReturn(0);
}

/* Renames tmp_path to path and waits until the rename is on the disk */
static PetscErrorCode MbsRenameSynced_Private(const char tmp_path[], const char path[])
{
  char directory[PETSC_MAX_PATH_LEN];
  int  fd, error;

  PetscFunctionBeginUser;
  PetscCheck(rename(tmp_path, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s': %s", tmp_path, path, strerror(errno));
  PetscCall(PetscStrncpy(directory, path, sizeof(directory)));
  fd    = open(dirname(directory), O_RDONLY | O_DIRECTORY);
  error = fd < 0 ? errno : fsync(fd) == 0 ? 0 : errno;
  if (fd >= 0) (void)close(fd);
  PetscCheck(!error, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot flush the rename of '%s' to the disk: %s", path, strerror(error));
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriterClose - Stores the file under its temporary name, flushed to the disk, and renames it to the result's
  name. Not collective.
@*/
PetscErrorCode MbsH5WriterClose(MbsH5Writer *writer)
{
  PetscFunctionBeginUser;
  PetscCall(MbsH5WriterStore_Private(writer));
  MbsCallHDF5(H5Fclose(writer->file), writer->tmp_path, "/");
  writer->file = -1;
  PetscCall(MbsRenameSynced_Private(writer->tmp_path, writer->path));
  PetscCall(MbsPendingTmpSet_Private(writer->tmp_path, ""));
  PetscFunctionReturn(0);
}

/*@C
  MbsFileWrite - Writes size bytes as the file 'path' (what), through a temporary file flushed to the disk and renamed;
  a failure (a full disk) removes the temporary file and names the errno. Not collective.
@*/
PetscErrorCode MbsFileWrite(const char path[], const char what[], const char *bytes, size_t size)
{
  char tmp_path[PETSC_MAX_PATH_LEN];
  int  error;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(tmp_path, sizeof(tmp_path), "%s.tmp.%d", path, (int)getpid()));
  error = MbsWriteBytes_Private(tmp_path, bytes, size);
  if (error) (void)unlink(tmp_path);
  PetscCheck(!error, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s '%s' (%.3g MB, through '%s'): %s", what, path, (double)size / 1e6, tmp_path, strerror(error));
  PetscCall(MbsPendingTmpSet_Private("", tmp_path));
  PetscCall(MbsRenameSynced_Private(tmp_path, path));
  PetscCall(MbsPendingTmpSet_Private(tmp_path, ""));
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriteAttribute - Writes a string attribute on the object at 'object' (a group or dataset path). Not collective.
@*/
PetscErrorCode MbsH5WriteAttribute(MbsH5Writer *writer, const char object_path[], const char name[], const char value[])
{
  hid_t type = MbsH5StringType_Private(), space = H5Screate(H5S_SCALAR), attr;
  char  object[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(MbsH5FullPath_Private(writer, object_path, object, sizeof(object)));
  MbsCallHDF5(type, writer->tmp_path, name);
  MbsCallHDF5(space, writer->tmp_path, name);
  attr = H5Acreate_by_name(writer->file, object, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  MbsCallHDF5(attr, writer->tmp_path, name);
  MbsCallHDF5(H5Awrite(attr, type, &value), writer->tmp_path, name);
  MbsCallHDF5(H5Aclose(attr), writer->tmp_path, name);
  MbsCallHDF5(H5Sclose(space), writer->tmp_path, name);
  MbsCallHDF5(H5Tclose(type), writer->tmp_path, name);
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriteReals - Writes a dataset of doubles with dimensions dims[0..rank-1] (row-major) and its 'units' attribute
  (every dataset has one: "1" for a pure number, a rule such as "see /parameters/unit" for mixed units). Not collective.
@*/
PetscErrorCode MbsH5WriteReals(MbsH5Writer *writer, const char object_path[], PetscInt rank, const PetscInt dims[], const PetscReal data[], const char units[])
{
  hsize_t hdims[3];
  hid_t   space, lcpl = MbsH5LinkCreationProperties_Private(), dset;
  char    path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(MbsH5FullPath_Private(writer, object_path, path, sizeof(path)));
  PetscCheck(rank >= 1 && rank <= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Datasets of rank %" PetscInt_FMT " are not supported", rank);
  PetscCheck(units, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Dataset '%s' of '%s' is written without units", path, writer->tmp_path);
  for (PetscInt d = 0; d < rank; d++) hdims[d] = (hsize_t)dims[d];
  space = H5Screate_simple((int)rank, hdims, NULL);
  MbsCallHDF5(space, writer->tmp_path, path);
  MbsCallHDF5(lcpl, writer->tmp_path, path);
  dset = H5Dcreate2(writer->file, path, H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  MbsCallHDF5(dset, writer->tmp_path, path);
  MbsCallHDF5(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), writer->tmp_path, path);
  MbsCallHDF5(H5Dclose(dset), writer->tmp_path, path);
  MbsCallHDF5(H5Pclose(lcpl), writer->tmp_path, path);
  MbsCallHDF5(H5Sclose(space), writer->tmp_path, path);
  PetscCall(MbsH5WriteAttribute(writer, object_path, "units", units));
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriteStrings - Writes a 1-D dataset of UTF-8 strings. Not collective.
@*/
PetscErrorCode MbsH5WriteStrings(MbsH5Writer *writer, const char object_path[], PetscInt n, const char *const strings[])
{
  hsize_t dim  = (hsize_t)n;
  hid_t   type = MbsH5StringType_Private(), space = H5Screate_simple(1, &dim, NULL), lcpl = MbsH5LinkCreationProperties_Private(), dset;
  char    path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(MbsH5FullPath_Private(writer, object_path, path, sizeof(path)));
  MbsCallHDF5(type, writer->tmp_path, path);
  MbsCallHDF5(space, writer->tmp_path, path);
  MbsCallHDF5(lcpl, writer->tmp_path, path);
  dset = H5Dcreate2(writer->file, path, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  MbsCallHDF5(dset, writer->tmp_path, path);
  MbsCallHDF5(H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, strings), writer->tmp_path, path);
  MbsCallHDF5(H5Dclose(dset), writer->tmp_path, path);
  MbsCallHDF5(H5Pclose(lcpl), writer->tmp_path, path);
  MbsCallHDF5(H5Sclose(space), writer->tmp_path, path);
  MbsCallHDF5(H5Tclose(type), writer->tmp_path, path);
  PetscFunctionReturn(0);
}

/*@C
  MbsVersion - "mbsid VERSION (commit C[, modified]; PETSc a.b.c, SLEPc a.b.c)": the version of project() in
  CMakeLists.txt, the git commit built and whether tracked files differed from it. Needs no initialisation.
@*/
const char *MbsVersion(void)
{
  static char text[160];

  if (!text[0])
    (void)snprintf(text, sizeof(text), "mbsid %s (commit %s%s; PETSc %d.%d.%d, SLEPc %d.%d.%d)", MBSID_VERSION, MBSID_GIT_COMMIT, strcmp(MBSID_GIT_DIRTY, "yes") ? "" : ", modified", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, SLEPC_VERSION_MAJOR, SLEPC_VERSION_MINOR, SLEPC_VERSION_SUBMINOR);
  return text;
}

/*@C
  MbsH5WriteProvenance - Root attributes saying what made the file: mbsid version and git commit, PETSc, SLEPc and
  HDF5 versions, the full option list, the MPI size and the date. Not collective (comm only gives the size).
@*/
PetscErrorCode MbsH5WriteProvenance(MbsH5Writer *writer, MPI_Comm comm)
{
  char        petsc[256], slepc[256], hdf5[64], size[32], date[64], *options;
  PetscMPIInt mpi_size;
  unsigned    major, minor, release;
  time_t      now = time(NULL);

  PetscFunctionBeginUser;
  PetscCall(PetscGetVersion(petsc, sizeof(petsc)));
  PetscCall(SlepcGetVersion(slepc, sizeof(slepc)));
  MbsCallHDF5(H5get_libversion(&major, &minor, &release), writer->tmp_path, "/");
  PetscCall(PetscSNPrintf(hdf5, sizeof(hdf5), "HDF5 %u.%u.%u", major, minor, release));
  PetscCallMPI(MPI_Comm_size(comm, &mpi_size));
  PetscCall(PetscSNPrintf(size, sizeof(size), "%d", (int)mpi_size));
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  PetscCall(PetscOptionsGetAll(NULL, &options));
  PetscCall(MbsH5WriteAttribute(writer, "/", "mbsid_version", MBSID_VERSION));
  PetscCall(MbsH5WriteAttribute(writer, "/", "git_commit", MBSID_GIT_COMMIT));
  PetscCall(MbsH5WriteAttribute(writer, "/", "git_dirty", MBSID_GIT_DIRTY));
  PetscCall(MbsH5WriteAttribute(writer, "/", "petsc_version", petsc));
  PetscCall(MbsH5WriteAttribute(writer, "/", "slepc_version", slepc));
  PetscCall(MbsH5WriteAttribute(writer, "/", "hdf5_version", hdf5));
  PetscCall(MbsH5WriteAttribute(writer, "/", "options", options));
  PetscCall(MbsH5WriteAttribute(writer, "/", "mpi_size", size));
  PetscCall(MbsH5WriteAttribute(writer, "/", "date", date));
  PetscCall(PetscFree(options));
  PetscFunctionReturn(0);
}

/*@C
  MbsH5ReadAttribute - Reads the string attribute 'name' of the object at 'object'; a missing attribute sets *found = PETSC_FALSE
  when found is not NULL and is an error otherwise. Not collective.
@*/
PetscErrorCode MbsH5ReadAttribute(hid_t file, const char filename[], const char object[], const char name[], char value[], size_t len, PetscBool *found)
{
  hid_t    attr, type, memtype, space;
  htri_t   exists;
  hssize_t npoints;

  PetscFunctionBeginUser;
  value[0] = 0;
  exists   = H5Aexists_by_name(file, object, name, H5P_DEFAULT);
  if (exists <= 0) {
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': object '%s' has no attribute '%s'", filename, object, name);
    *found = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  if (found) *found = PETSC_TRUE;
  attr = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
  MbsCallHDF5(attr, filename, name);
  type = H5Aget_type(attr);
  MbsCallHDF5(type, filename, name);
  PetscCheck(H5Tget_class(type) == H5T_STRING, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': attribute '%s' of '%s' must be a string", filename, name, object);
  space = H5Aget_space(attr);
  MbsCallHDF5(space, filename, name);
  npoints = H5Sget_simple_extent_npoints(space);
  MbsCallHDF5(H5Sclose(space), filename, name);
  /* reading an array into one string would overrun it */
  PetscCheck(npoints == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': attribute '%s' of '%s' must be one string, not an array of %lld", filename, name, object, (long long)npoints);
  if (H5Tis_variable_str(type) > 0) {
    char *text = NULL;

    memtype = MbsH5StringType_Private();
    MbsCallHDF5(H5Aread(attr, memtype, &text), filename, name);
    PetscCall(PetscStrncpy(value, text ? text : "", len));
    H5free_memory(text);
  } else {
    size_t size = H5Tget_size(type);
    char  *text;
    herr_t status;

    memtype = H5Tcopy(H5T_C_S1);
    MbsCallHDF5(H5Tset_size(memtype, size + 1), filename, name);
    PetscCall(PetscCalloc1(size + 1, &text));
    status = H5Aread(attr, memtype, text);
    PetscCall(PetscStrncpy(value, text, len));
    PetscCall(PetscFree(text));
    MbsCallHDF5(status, filename, name);
  }
  MbsCallHDF5(H5Tclose(memtype), filename, name);
  MbsCallHDF5(H5Tclose(type), filename, name);
  MbsCallHDF5(H5Aclose(attr), filename, name);
  PetscFunctionReturn(0);
}

/*@C
  MbsH5ReadReals - Reads a float dataset of the given rank and checks that every value is finite and, when units is not
  NULL, that its 'units' attribute says so. A missing dataset sets *found = PETSC_FALSE when found is not NULL and is an
  error otherwise. Not collective.
@*/
PetscErrorCode MbsH5ReadReals(hid_t file, const char filename[], const char path[], PetscInt rank, PetscInt dims[], PetscReal **data, const char units[], PetscBool *found)
{
  hid_t   dset, space, type;
  hsize_t hdims[2];
  int     file_rank;
  size_t  count = 1;

  PetscFunctionBeginUser;
  *data = NULL;
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0 || H5Oexists_by_name(file, path, H5P_DEFAULT) <= 0) {
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s' has no dataset '%s'", filename, path);
    *found = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  if (found) *found = PETSC_TRUE;
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': '%s' is not a readable dataset", filename, path);
  type = H5Dget_type(dset);
  MbsCallHDF5(type, filename, path);
  PetscCheck(H5Tget_class(type) == H5T_FLOAT || H5Tget_class(type) == H5T_INTEGER, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' must hold numbers", filename, path);
  space = H5Dget_space(dset);
  MbsCallHDF5(space, filename, path);
  file_rank = H5Sget_simple_extent_ndims(space);
  PetscCheck(file_rank == (int)rank, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' has %d dimensions, expected %" PetscInt_FMT, filename, path, file_rank, rank);
  MbsCallHDF5(H5Sget_simple_extent_dims(space, hdims, NULL), filename, path);
  for (PetscInt d = 0; d < rank; d++) {
    dims[d] = (PetscInt)PetscMin(hdims[d], (hsize_t)PETSC_MAX_INT);
    count *= (size_t)PetscMin(hdims[d], (hsize_t)2000000000); /* no overflow; the cap below refuses it anyway */
  }
  PetscCheck(count > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' is empty", filename, path);
  /* a damaged or hostile header may claim any size; 10^9 values (8 GB, two days of a 5 kHz signal) is past any measurement */
  PetscCheck(count <= (size_t)1000000000, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' claims %g values, more than the 10^9 a measurement may hold (a damaged file?)", filename, path, rank == 1 ? (double)hdims[0] : (double)hdims[0] * (double)hdims[1]);
  PetscCall(PetscMalloc1(count, data));
  PetscCheck(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "File '%s': cannot read dataset '%s' (truncated or damaged file?)", filename, path);
  for (size_t i = 0; i < count; i++) PetscCheck(!PetscIsInfOrNanReal((*data)[i]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' holds a non-finite value (%g) at flat index %zu", filename, path, (double)(*data)[i], i);
  MbsCallHDF5(H5Sclose(space), filename, path);
  MbsCallHDF5(H5Tclose(type), filename, path);
  MbsCallHDF5(H5Dclose(dset), filename, path);
  if (units) {
    char      file_units[64];
    PetscBool same;

    PetscCall(MbsH5ReadAttribute(file, filename, path, "units", file_units, sizeof(file_units), NULL));
    PetscCall(PetscStrcmp(file_units, units, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' is in '%s', expected '%s'", filename, path, file_units, units);
  }
  PetscFunctionReturn(0);
}
