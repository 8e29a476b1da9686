/*
  HDF5 helpers. Results are written to "<name>.tmp.<pid>", flushed to the disk (fsync) and renamed to <name> on
  close, so a crash or a kill, even of the machine, never leaves a half-written file under the user's name and
  never overwrites a good one in place. Every HDF5 failure becomes a PETSc error naming the file and the object; HDF5's own error
  stack printing is switched off so the user sees one clear message.
*/
#define _POSIX_C_SOURCE 200809L /* fsync, O_DIRECTORY: mbsid builds as strict C17 */
#include "mbsidimpl.h"
#include <slepcsys.h>
#include <fcntl.h>
#include <libgen.h>
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
  Temporary files of writers not closed yet: removed when the process exits, so that a run that fails while writing
  (an error returns through main) leaves no NAME.tmp.<pid> behind.
*/
#define MBS_PENDING_MAX 4
static char MbsPendingTmp[MBS_PENDING_MAX][PETSC_MAX_PATH_LEN];

static void MbsRemovePendingTmp(void)
{
  for (int i = 0; i < MBS_PENDING_MAX; i++)
    if (MbsPendingTmp[i][0]) (void)unlink(MbsPendingTmp[i]);
}

static PetscErrorCode MbsPendingTmpSet_Private(const char old[], const char new_path[])
{
  static PetscBool registered = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (!registered) {
    PetscCheck(atexit(MbsRemovePendingTmp) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Cannot register the removal of temporary result files");
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
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d result files open at once", MBS_PENDING_MAX);
}

/*@C
  MbsH5WriterOpen - Creates the temporary file for the result 'path'. Not collective: call on the writing rank only.
@*/
PetscErrorCode MbsH5WriterOpen(const char path[], MbsH5Writer *writer)
{
  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  PetscCall(PetscMemzero(writer, sizeof(*writer)));
  PetscCall(PetscStrncpy(writer->path, path, sizeof(writer->path)));
  PetscCall(PetscSNPrintf(writer->tmp_path, sizeof(writer->tmp_path), "%s.tmp.%d", path, (int)getpid()));
  writer->file = H5Fcreate(writer->tmp_path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  PetscCheck(writer->file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create HDF5 file '%s' (for '%s'): check that the directory exists and is writable", writer->tmp_path, path);
  PetscCall(MbsPendingTmpSet_Private("", writer->tmp_path));
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriterSuspend - Closes the temporary file without renaming it, so that another rank can add to it. Not collective.
@*/
PetscErrorCode MbsH5WriterSuspend(MbsH5Writer *writer)
{
  PetscFunctionBeginUser;
  MbsCallHDF5(H5Fclose(writer->file), writer->tmp_path, "/");
  writer->file = -1;
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriterResume - Reopens the temporary file of a writer (opened on any rank) for writing. Not collective.
@*/
PetscErrorCode MbsH5WriterResume(MbsH5Writer *writer)
{
  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  writer->file = H5Fopen(writer->tmp_path, H5F_ACC_RDWR, H5P_DEFAULT);
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

/* Waits until the file (or directory) at path is on the disk */
static PetscErrorCode MbsSync_Private(const char path[], int flags)
{
  int fd = open(path, flags);

  PetscFunctionBeginUser;
  PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot open '%s' to flush it to the disk", path);
  PetscCheck(fsync(fd) == 0 && close(fd) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot flush '%s' to the disk", path);
  PetscFunctionReturn(0);
}

/*@C
  MbsH5WriterClose - Closes the temporary file, flushes it to the disk and renames it to the result's name. Not collective.
@*/
PetscErrorCode MbsH5WriterClose(MbsH5Writer *writer)
{
  char directory[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  MbsCallHDF5(H5Fclose(writer->file), writer->tmp_path, "/");
  writer->file = -1;
  PetscCall(MbsSync_Private(writer->tmp_path, O_RDONLY));
  PetscCheck(rename(writer->tmp_path, writer->path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s'", writer->tmp_path, writer->path);
  PetscCall(PetscStrncpy(directory, writer->path, sizeof(directory)));
  PetscCall(MbsSync_Private(dirname(directory), O_RDONLY | O_DIRECTORY)); /* the rename itself */
  PetscCall(MbsPendingTmpSet_Private(writer->tmp_path, ""));
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
