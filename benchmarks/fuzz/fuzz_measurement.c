/*
  libFuzzer harness of the measurement reader (MbsMeasurementRead): every input is written to a file and read as a
  measurement. An error is a correct answer to a bad file; a crash, a sanitizer report or a hang is a finding.
  Built by CMake with -DMBSID_FUZZ=ON and clang; run by benchmarks/fuzz/run.
*/
#include "mbsidimpl.h"

static char MbsFuzzPath[PETSC_MAX_PATH_LEN];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  /* a crash must reach libFuzzer, which records the input, not PETSc's signal handler, which aborts */
  if (PetscOptionsSetValue(NULL, "-no_signal_handler", NULL)) return 1;
  /* the reader's own alarm replaces libFuzzer's -timeout while it reads: a loop in libhdf5 must end as soon */
  if (PetscOptionsSetValue(NULL, "-measurement_read_timeout", "10")) return 1;
  if (PetscInitializeNoArguments()) return 1;
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) return 1; /* a refused file is no finding: no tracebacks */
  snprintf(MbsFuzzPath, sizeof(MbsFuzzPath), "%s/mbsid-fuzz-measurement-%d.h5", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  FILE          *file = fopen(MbsFuzzPath, "wb");
  MbsMeasurement meas;
  ssize_t        nopen;

  if (!file) return 0;
  fwrite(data, 1, size, file);
  fclose(file);
  (void)MbsMeasurementRead(PETSC_COMM_SELF, MbsFuzzPath, &meas);
  (void)MbsMeasurementReset(&meas);
  /* an error returns before the reader closes what it opened: close it here, or the handles would pile up */
  nopen = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (nopen > 0) {
    hid_t *ids = (hid_t *)malloc((size_t)nopen * sizeof(hid_t));

    nopen = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_ALL, (size_t)nopen, ids);
    for (ssize_t i = 0; i < nopen; i++) {
      switch (H5Iget_type(ids[i])) {
      case H5I_FILE:
        H5Fclose(ids[i]);
        break;
      case H5I_DATASET:
        H5Dclose(ids[i]);
        break;
      case H5I_GROUP:
        H5Gclose(ids[i]);
        break;
      case H5I_ATTR:
        H5Aclose(ids[i]);
        break;
      case H5I_DATATYPE:
        H5Tclose(ids[i]);
        break;
      default:
        break;
      }
    }
    free(ids);
  }
  return 0;
}
