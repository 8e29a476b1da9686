/*
  Private declarations shared by every layer of libmbsid (the foundation in util/): dense column-major access,
  HDF5 files (result writer, readers that name file and dataset), names of function lists. The layers stand in
  this order, each using only those below it: util, controllers, models, core, costs, identification, commands (doc/developer.md,
  "Code map"); each folder's private header declares what the layers above may use of it.
*/
#pragma once

#include "mbsid.h"
#include "util/petsc_workarounds.h"
#include <hdf5.h>
#include <unistd.h>

PETSC_INTERN PetscErrorCode MbsFunctionListNames(PetscFunctionList, char[], size_t);
PETSC_INTERN PetscErrorCode MbsOptionsOutputFile(PetscOptionItems *, const char[], const char[], char[], size_t);
PETSC_INTERN PetscErrorCode MbsOptionsInputFile(PetscOptionItems *, const char[], const char[], const char[], char[], size_t, PetscBool *);
PETSC_INTERN PetscErrorCode MbsFileDeclare(MPI_Comm, const char[], const char[], PetscBool, const char[]);
PETSC_INTERN PetscInt       MbsDeclaredFileCount(void);
PETSC_INTERN void           MbsDeclaredFileGet(PetscInt, const char **, const char **, PetscBool *);
PETSC_EXTERN PetscErrorCode MbsOptionsFilesDeclare(MPI_Comm, int, char **);
PETSC_EXTERN PetscErrorCode MbsOptionsCheckUnused(MPI_Comm, PetscBool);
PETSC_INTERN PetscErrorCode MbsOptionsIntRange(PetscOptionItems *, const char[], const char[], PetscInt *, PetscInt, PetscInt, PetscBool *);
PETSC_INTERN PetscErrorCode MbsOptionsRealArrayExact(PetscOptionItems *, const char[], const char[], const char[], PetscInt, PetscReal[], PetscBool *);
PETSC_INTERN PetscErrorCode MbsOptionsRealArray(PetscOptionItems *, const char[], const char[], const char[], PetscInt, PetscReal[], PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsOptionsIntArray(PetscOptionItems *, const char[], const char[], const char[], PetscInt, PetscInt[], PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode MbsNamedValues(MPI_Comm, const char[], const char[], const char[], const char[], PetscInt, const char *const[], PetscReal[]);
PETSC_INTERN PetscErrorCode MbsHelpMute(PetscBool);
PETSC_INTERN PetscErrorCode MbsStringsFree(PetscInt, char *[]);
PETSC_INTERN PetscErrorCode MbsStrlcat(char[], const char[], size_t);
PETSC_EXTERN PetscErrorCode MbsPushErrorHandler(void);
PETSC_EXTERN PetscBool      MbsErrorRaisedOnEveryRank(void);
PETSC_EXTERN const char    *MbsVersion(void);

/*
  MbsCallCleanup - Runs `call`, then `cleanup` whether `call` failed or not, then raises the first error. PETSc does
  not unwind on an error, so a function that owns objects does its work in `call` and frees them in `cleanup`: a
  failure then leaves nothing allocated (main() finalises after an error raised on every rank, and -malloc_dump
  reports what was left).
*/
#define MbsCallCleanup(call, cleanup) \
  do { \
    PetscErrorCode mbs_call_ierr_ = (call), mbs_cleanup_ierr_ = (cleanup); \
    PetscCall(mbs_call_ierr_); \
    PetscCall(mbs_cleanup_ierr_); \
  } while (0)

/* MbsCallUndo - Runs `call`; if it fails, runs `undo` (whose own error is ignored), then raises the error */
#define MbsCallUndo(call, undo) \
  do { \
    PetscErrorCode mbs_undo_ierr_ = (call); \
    if (PetscUnlikely(mbs_undo_ierr_)) { \
      (void)(undo); \
      PetscCall(mbs_undo_ierr_); \
    } \
  } while (0)

/* An options block whose strings main() frees when an error inside it skips its end (options.c) */
#define MbsOptionsBegin(comm, prefix, title, man) \
  PetscOptionsBegin(comm, prefix, title, man); \
  PetscCall(MbsOptionsBlockOpened(PetscOptionsObject))
#define MbsOptionsEnd() \
  PetscCall(MbsOptionsBlockClosing(PetscOptionsObject)); \
  PetscOptionsEnd()
PETSC_INTERN PetscErrorCode MbsOptionsBlockOpened(PetscOptionItems *);
PETSC_INTERN PetscErrorCode MbsOptionsBlockClosing(PetscOptionItems *);
PETSC_EXTERN PetscErrorCode MbsOptionsBlocksFree(void);

/* Stop requests (SIGTERM, SIGUSR1, SIGINT) caught during a long computation; the stop returns as this error code */
#define MBS_ERR_INTERRUPTED 120
/* Parameters outside a model's domain at its start (no pose satisfies the moved joints, a frame that is no rotation):
   raised by the model's initial state, a failed evaluation inside identify and scan (MbsModelInitialStateTry) */
#define MBS_ERR_START_REFUSED 121
PETSC_INTERN PetscErrorCode MbsInterruptCatch(PetscBool);
PETSC_INTERN PetscErrorCode MbsInterruptRequested(MPI_Comm, int *);
PETSC_INTERN const char    *MbsInterruptSignalName(int);
PETSC_EXTERN int            MbsYAMLCheckOptionsFiles(int, char **, char[], size_t);

/* Column-major dense access */
#define MBS_IJ(A, i, j, rows) (A)[(i) + (j) * (rows)]

/* HDF5 helpers: every HDF5 failure becomes a PETSc error that names the file and the object. */
#define MbsCallHDF5(call, file, object) \
  do { \
    if ((call) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "HDF5 error in %s on '%s' of file '%s'", #call, object, file); \
  } while (0)

typedef struct {
  hid_t file;
  char  path[PETSC_MAX_PATH_LEN];     /* the name the user asked for */
  char  tmp_path[PETSC_MAX_PATH_LEN]; /* written here, renamed to path on close */
  char  base[128];                    /* group that object paths are relative to ("" for the root) */
} MbsH5Writer;

PETSC_EXTERN void           MbsH5WritersAbandon(void);
PETSC_INTERN PetscErrorCode MbsFileWrite(const char[], const char[], const char *, size_t);

PETSC_INTERN PetscErrorCode MbsH5WriterOpen(const char[], MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriterClose(MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriterSuspend(MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriterResume(MbsH5Writer *);
PETSC_INTERN PetscErrorCode MbsH5WriterRemoveStale(const char[], long *);
PETSC_INTERN PetscErrorCode MbsH5WriteReals(MbsH5Writer *, const char[], PetscInt, const PetscInt[], const PetscReal[], const char[]);
PETSC_INTERN PetscErrorCode MbsH5WriteStrings(MbsH5Writer *, const char[], PetscInt, const char *const[]);
PETSC_INTERN PetscErrorCode MbsH5WriteAttribute(MbsH5Writer *, const char[], const char[], const char[]);
PETSC_INTERN PetscErrorCode MbsH5WriteProvenance(MbsH5Writer *, MPI_Comm);
#define MBS_CHECKSUM_START 14695981039346656037ULL
PETSC_INTERN unsigned long long MbsChecksumBytes(unsigned long long, const void *, size_t);
PETSC_INTERN PetscErrorCode     MbsChecksumFile(const char[], const char[], unsigned long long *);
PETSC_INTERN PetscErrorCode     MbsModelWriteIdentity(MbsModel, MbsH5Writer *, const char[]);
PETSC_INTERN PetscErrorCode     MbsModelGetPlanar(MbsModel, const char **);
PETSC_INTERN PetscErrorCode     MbsH5ReadReals(hid_t, const char[], const char[], PetscInt, PetscInt[], PetscReal **, const char[], PetscBool *);
PETSC_INTERN PetscErrorCode     MbsMeasurementWriteGroups_Private(MbsH5Writer *, const MbsMeasurement *);
PETSC_INTERN PetscErrorCode     MbsH5ReadAttribute(hid_t, const char[], const char[], const char[], char[], size_t, PetscBool *);
PETSC_INTERN PetscInt           MbsLowerBound(const PetscReal[], PetscInt, PetscReal);

/* A table of numbers from a CSV or whitespace-separated text file (csv.c) */
typedef struct {
  char       path[PETSC_MAX_PATH_LEN];
  char       delimiter; /* ';', ',', '\t', or ' ' for runs of blanks */
  PetscInt   ncol, nrow;
  char     **name;        /* ncol names from the header line; NULL when the file has none */
  PetscInt   header_line; /* the file's line of the header, 0 without one */
  PetscReal *value;       /* nrow x ncol, row-major */
  PetscInt  *line;        /* the file's line number of each row, for messages */
} MbsCsv;

PETSC_INTERN PetscErrorCode MbsCsvRead(const char[], PetscBool, MbsCsv *);
PETSC_INTERN PetscErrorCode MbsCsvFindColumn(const MbsCsv *, const char[], PetscInt *);
PETSC_INTERN PetscErrorCode MbsCsvColumnName(const MbsCsv *, PetscInt, char[], size_t);
PETSC_INTERN PetscErrorCode MbsCsvReset(MbsCsv *);
