static const char help[] = "Round trip of virtual measurements and validation of corrupted measurement files.\n";

/*
  1. Reads the virtual measurement that 'mbsid simulate ... -save_measurement' wrote (-measurement) and
     compares it bit for bit with the same simulation and analysis done here in memory.
  2. Writes corrupted variants of a measurement file (bad_*.h5, kept for the command-line tests) and
     checks that the reader rejects each with a message naming the file and the dataset at fault, leaving nothing
     allocated and nothing open; with -corpus PATTERN instead, likewise every file of the bad-input corpus.
*/
#define _XOPEN_SOURCE 700 /* truncate() */
#include <glob.h>
#include <math.h>
#include "mbstest.h"
#include "models/modelimpl.h"

static PetscErrorCode CompareExactly(MbsTest *test, const char what[], PetscInt n, const PetscReal got[], PetscInt n_want, const PetscReal want[])
{
  PetscBool same = (PetscBool)(n == n_want && got && want);
  char      line[128];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; same && i < n; i++) same = (PetscBool)(got[i] == want[i]);
  PetscCall(PetscSNPrintf(line, sizeof(line), "%s: %" PetscInt_FMT " values read back bit for bit", what, n));
  PetscCall(MbsTestTrue(test, line, same));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRoundTrip(MbsTest *test, const char path[])
{
  MbsModel         model;
  MbsFourier       fourier;
  MbsSignal        signal;
  MbsMeasurement   meas;
  const PetscReal *A, *B, *omega;
  PetscReal       *freq, *amp;
  PetscInt         ncoef;

  PetscFunctionBeginUser;
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsFourierCreate(&fourier));
  PetscCall(MbsFourierSetFromOptions(fourier, model));
  PetscCall(MbsSimulate(model, NULL, NULL, NULL, &signal));
  PetscCall(MbsFourierComputeSignal(fourier, &signal));
  PetscCall(MbsFourierGetNumCoefficients(fourier, &ncoef));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  PetscCall(MbsFourierGetFrequencies(fourier, &omega));
  PetscCall(PetscMalloc2(ncoef, &freq, ncoef, &amp));
  for (PetscInt j = 0; j < ncoef; j++) {
    freq[j] = omega[j] / (2 * PETSC_PI);
    amp[j]  = PetscSqrtReal(A[j] * A[j] + B[j] * B[j]);
  }

  PetscCall(MbsMeasurementRead(PETSC_COMM_WORLD, path, &meas));
  PetscCall(MbsTestTrue(test, "measurement names the model", (PetscBool)!strcmp(meas.model, model->type)));
  PetscCall(MbsTestTrue(test, "measurement carries the output unit", (PetscBool)!strcmp(meas.units, model->output_unit)));
  PetscCall(CompareExactly(test, "/signal/t", meas.nsignal, meas.t, signal.n, signal.t));
  PetscCall(CompareExactly(test, "/signal/y", meas.nsignal, meas.y, signal.n, signal.y));
  PetscCall(CompareExactly(test, "/spectrum/frequency", meas.nfreq, meas.frequency, ncoef, freq));
  PetscCall(CompareExactly(test, "/spectrum/amplitude", meas.nfreq, meas.amplitude, ncoef, amp));
  PetscCall(CompareExactly(test, "/spectrum/A", meas.nfreq, meas.a, ncoef, A));
  PetscCall(CompareExactly(test, "/spectrum/B", meas.nfreq, meas.b, ncoef, B));
  PetscCall(MbsMeasurementReset(&meas));
  PetscCall(PetscFree2(freq, amp));
  PetscCall(MbsSignalDestroy(&signal));
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(MbsModelDestroy(&model));
  PetscFunctionReturn(0);
}

typedef enum {
  BAD_MISSING_AMPLITUDE,
  BAD_SHAPE,
  BAD_NAN,
  BAD_NEGATIVE_FREQUENCY,
  BAD_UNITS,
  BAD_ORDER_SHAPE,
  BAD_EMPTY,
  BAD_TRUNCATED,
  BAD_COUNT
} Corruption;
static const char *const CorruptionNames[BAD_COUNT] = {"missing_amplitude", "shape", "nan", "negative_frequency", "units", "order_shape", "empty", "truncated"};
/* what the error message must contain */
static const char *const CorruptionMessages[BAD_COUNT] = {"no dataset '/spectrum/amplitude'", "'/spectrum/amplitude' has 4 entries", "'/spectrum/amplitude' holds a non-finite value", "'/spectrum/frequency' has -0.5", "is in 'rad/s', expected 'Hz'", "'/orders/amplitude' is 2 x 3", "holds no measurement", "truncated"};

static PetscErrorCode WriteCorrupted(Corruption bad, const char path[])
{
  MbsH5Writer writer;
  PetscReal   freq[5] = {0.5, 1.0, 1.5, 2.0, 2.5}, amp[5] = {1e-3, 2e-3, 5e-3, 2e-3, 1e-3}, speed[3] = {3000, 3100, 3200}, order[2] = {2, 4}, order_amp[6] = {1, 2, 3, 4, 5, 6};
  PetscInt    n = 5, dims[2] = {2, 3}, nspeed = 3, norder = 2;

  PetscFunctionBeginUser;
  PetscCall(MbsH5WriterOpen(path, &writer));
  PetscCall(MbsH5WriteAttribute(&writer, "/", "units", "rad"));
  PetscCall(MbsH5WriteAttribute(&writer, "/", "model", "cart_pendulum_chain"));
  if (bad == BAD_NEGATIVE_FREQUENCY) freq[0] = -0.5;
  if (bad == BAD_NAN) amp[2] = NAN;
  if (bad == BAD_ORDER_SHAPE) {
    PetscCall(MbsH5WriteReals(&writer, "/orders/speed", 1, &nspeed, speed, "rpm"));
    PetscCall(MbsH5WriteReals(&writer, "/orders/order", 1, &norder, order, "1"));
    PetscCall(MbsH5WriteReals(&writer, "/orders/amplitude", 2, dims, order_amp, "rad"));
  } else if (bad != BAD_EMPTY) {
    PetscCall(MbsH5WriteReals(&writer, "/spectrum/frequency", 1, &n, freq, bad == BAD_UNITS ? "rad/s" : "Hz"));
    if (bad != BAD_MISSING_AMPLITUDE) {
      PetscInt namp = bad == BAD_SHAPE ? n - 1 : n;

      PetscCall(MbsH5WriteReals(&writer, "/spectrum/amplitude", 1, &namp, amp, "rad"));
    }
  }
  if (bad == BAD_TRUNCATED) { /* a large signal group, so that cutting the file loses data */
    PetscInt   nsig = 20000;
    PetscReal *t;

    PetscCall(PetscMalloc1(nsig, &t));
    for (PetscInt i = 0; i < nsig; i++) t[i] = 1e-3 * i;
    PetscCall(MbsH5WriteReals(&writer, "/signal/t", 1, &nsig, t, "s"));
    PetscCall(MbsH5WriteReals(&writer, "/signal/y", 1, &nsig, t, "rad"));
    PetscCall(PetscFree(t));
  }
  PetscCall(MbsH5WriterClose(&writer));
  if (bad == BAD_TRUNCATED) {
    FILE *f = fopen(path, "r+");
    long  size;

    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot reopen %s", path);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
    PetscCheck(truncate(path, size / 2) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot truncate %s", path);
  }
  PetscFunctionReturn(0);
}

/* The reader refuses the file with a message naming it and containing expect (or, unless must_refuse, reads it: some
   files of the corpus are bad only for the command that uses them), and leaves nothing behind: no bytes allocated
   (PETSc's count, with -malloc_debug), no HDF5 file open, no descriptor */
static PetscErrorCode CheckRefused(MbsTest *test, const char path[], const char expect[], PetscBool must_refuse)
{
  char                 line[1400];
  MbsTestCapturedError captured = {""};
  MbsMeasurement       meas;
  PetscErrorCode       ierr;
  PetscLogDouble       before, after;
  ssize_t              files = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
  int                  fd    = MbsTestNextDescriptor();
  PetscBool            answered;

  PetscFunctionBeginUser;
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(PetscPushErrorHandler(MbsTestCaptureError, &captured));
  ierr = MbsMeasurementRead(PETSC_COMM_WORLD, path, &meas);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) PetscCall(MbsMeasurementReset(&meas));
  PetscCall(PetscMallocGetCurrentUsage(&after));
  answered = ierr ? (PetscBool)(strstr(captured.message, path) && strstr(captured.message, expect)) : (PetscBool)!must_refuse;
  PetscCall(PetscSNPrintf(line, sizeof(line), "%s is %s: \"%s\"; %g bytes, %zd HDF5 files and %d descriptors left", path, ierr ? "rejected" : "read", captured.message, after - before, H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE) - files, MbsTestNextDescriptor() - fd));
  PetscCall(MbsTestTrue(test, line, (PetscBool)(answered && before > 0 && after == before && H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE) == files && MbsTestNextDescriptor() == fd)));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestCorrupted(MbsTest *test)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  for (PetscInt bad = 0; bad < BAD_COUNT; bad++) {
    char path[64];

    PetscCall(PetscSNPrintf(path, sizeof(path), "bad_%s.h5", CorruptionNames[bad]));
    if (rank == 0) PetscCall(WriteCorrupted((Corruption)bad, path));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    PetscCall(CheckRefused(test, path, CorruptionMessages[bad], PETSC_TRUE));
  }
  PetscFunctionReturn(0);
}

/* Every malformed file of the bad-input corpus (-corpus PATTERN, e.g. bad_input_*.h5 made by make_h5.py) */
static PetscErrorCode TestCorpus(MbsTest *test, const char pattern[])
{
  glob_t found;

  PetscFunctionBeginUser;
  PetscCheck(glob(pattern, 0, NULL, &found) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-corpus %s: no such files", pattern);
  for (size_t i = 0; i < found.gl_pathc; i++) PetscCall(CheckRefused(test, found.gl_pathv[i], "", PETSC_FALSE));
  globfree(&found);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsTest   test = {0, 0};
  char      path[PETSC_MAX_PATH_LEN];
  PetscBool roundtrip, corpus;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-measurement", path, sizeof(path), &roundtrip));
  if (roundtrip) PetscCall(TestRoundTrip(&test, path));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-corpus", path, sizeof(path), &corpus));
  if (corpus) PetscCall(TestCorpus(&test, path));
  else PetscCall(TestCorrupted(&test));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
