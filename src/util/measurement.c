/*
  Measurement files (HDF5), the data an identification fits:

    root attributes  model, output, units (of the output), created_by
    /spectrum/frequency [Hz] (N, >= 0, increasing), /spectrum/amplitude (N, >= 0), optional /spectrum/A, /B (N)
    /orders/speed [rpm] (S, > 0, increasing), /orders/order (O, > 0), /orders/amplitude (S x O, >= 0), optional
      /orders/A, /B (S x O): the coefficients a, b, phase-referred to t = 0 (the crank angle); attribute 'domain' of
      /orders: "time" (default) or "angle", the windows the orders were analysed in (fourier.c)
    /signal/t [s] (N, increasing), /signal/y (N), optional /signal/speed [rpm] (N, >= 0): a speed channel
    /frf/frequency_hz [Hz] (F, > 0, increasing; attribute 'load', the force element) and /frf/real, /frf/imag (F)
      [unit/N]: the complex frequency response H(f) of the channel per newton of the load (doc/schemas.md)
    /tacho/t [s] (P, increasing): tachometer pulse times
    /speed_profile/t [s] (R, increasing), /speed_profile/rpm [rpm] (R, > 0): a measured engine speed, optional
      /speed_profile/angle [rad] (R, increasing): the crank angle at those times (a tachometer's pulses)

  At least one group is present. Every dataset carries a 'units' attribute; the reader checks shapes,
  units, signs and finiteness and names the file and dataset at fault.

  Several channels: a group /channels/NAME per measured channel NAME, with a 'units' attribute (the channel's unit)
  and the same tables as the root of a one-channel file (/channels/NAME/spectrum, .../orders, .../signal), read and
  checked by the same code; /tacho and /speed_profile stay at the root, shared by every channel, and the root has no
  'output' or 'units'. Channels are read in the order of their names.
*/
#include "mbsidimpl.h"
#include <signal.h>

/* Writes one channel's tables (spectrum, orders, signal) and its 'units' below the writer's base group */
static PetscErrorCode MbsMeasurementWriteTables_Private(MbsH5Writer *writer, const MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  if (meas->nfreq > 0) {
    PetscCall(MbsH5WriteReals(writer, "/spectrum/frequency", 1, &meas->nfreq, meas->frequency, "Hz"));
    PetscCall(MbsH5WriteReals(writer, "/spectrum/amplitude", 1, &meas->nfreq, meas->amplitude, meas->units));
    if (meas->a) PetscCall(MbsH5WriteReals(writer, "/spectrum/A", 1, &meas->nfreq, meas->a, meas->units));
    if (meas->b) PetscCall(MbsH5WriteReals(writer, "/spectrum/B", 1, &meas->nfreq, meas->b, meas->units));
  }
  if (meas->nspeed > 0) {
    PetscInt dims[2] = {meas->nspeed, meas->norder};

    PetscCall(MbsH5WriteReals(writer, "/orders/speed", 1, &meas->nspeed, meas->speed, "rpm"));
    PetscCall(MbsH5WriteReals(writer, "/orders/order", 1, &meas->norder, meas->order, "1"));
    PetscCall(MbsH5WriteReals(writer, "/orders/amplitude", 2, dims, meas->order_amplitude, meas->units));
    if (meas->order_a) PetscCall(MbsH5WriteReals(writer, "/orders/A", 2, dims, meas->order_a, meas->units));
    if (meas->order_b) PetscCall(MbsH5WriteReals(writer, "/orders/B", 2, dims, meas->order_b, meas->units));
    PetscCall(MbsH5WriteAttribute(writer, "/orders", "domain", meas->order_domain[0] ? meas->order_domain : "time"));
  }
  if (meas->nsignal > 0) {
    PetscCall(MbsH5WriteReals(writer, "/signal/t", 1, &meas->nsignal, meas->t, "s"));
    PetscCall(MbsH5WriteReals(writer, "/signal/y", 1, &meas->nsignal, meas->y, meas->units));
    if (meas->signal_speed) PetscCall(MbsH5WriteReals(writer, "/signal/speed", 1, &meas->nsignal, meas->signal_speed, "rpm"));
  }
  if (meas->frf_re) {
    char unit[sizeof(meas->units) + 8];

    PetscCall(PetscSNPrintf(unit, sizeof(unit), "%s/N", meas->units));
    PetscCall(MbsH5WriteReals(writer, "/frf/real", 1, &meas->nfrf, meas->frf_re, unit));
    PetscCall(MbsH5WriteReals(writer, "/frf/imag", 1, &meas->nfrf, meas->frf_im, unit));
  }
  PetscCall(MbsH5WriteAttribute(writer, "/", "units", meas->units));
  PetscFunctionReturn(0);
}

/* Writes the data groups of a measurement; shared by measurement files and simulation results. */
PetscErrorCode MbsMeasurementWriteGroups_Private(MbsH5Writer *writer, const MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  if (!meas->nchannel) {
    PetscCall(MbsMeasurementWriteTables_Private(writer, meas));
    PetscCall(MbsH5WriteAttribute(writer, "/", "output", meas->output));
  }
  for (PetscInt c = 0; c < meas->nchannel; c++) {
    char base[sizeof(writer->base)];

    PetscCall(PetscStrncpy(base, writer->base, sizeof(base)));
    PetscCall(PetscSNPrintf(writer->base, sizeof(writer->base), "%s/channels/%s", base, meas->channel[c].output));
    MbsCallCleanup(MbsMeasurementWriteTables_Private(writer, &meas->channel[c]), PetscStrncpy(writer->base, base, sizeof(writer->base)));
  }
  if (meas->nfrf > 0) {
    PetscCall(MbsH5WriteReals(writer, "/frf/frequency_hz", 1, &meas->nfrf, meas->frf_frequency, "Hz"));
    PetscCall(MbsH5WriteAttribute(writer, "/frf/frequency_hz", "load", meas->frf_load));
  }
  if (meas->ntacho > 0) PetscCall(MbsH5WriteReals(writer, "/tacho/t", 1, &meas->ntacho, meas->tacho, "s"));
  if (meas->nprofile > 0) {
    PetscCall(MbsH5WriteReals(writer, "/speed_profile/t", 1, &meas->nprofile, meas->profile_t, "s"));
    PetscCall(MbsH5WriteReals(writer, "/speed_profile/rpm", 1, &meas->nprofile, meas->profile_rpm, "rpm"));
    if (meas->profile_angle) PetscCall(MbsH5WriteReals(writer, "/speed_profile/angle", 1, &meas->nprofile, meas->profile_angle, "rad"));
  }
  PetscCall(MbsH5WriteAttribute(writer, "/", "model", meas->model));
  PetscCall(MbsH5WriteAttribute(writer, "/", "created_by", meas->created_by));
  PetscFunctionReturn(0);
}

/*@C
  MbsMeasurementWrite - Writes a measurement file (rank 0 writes, through a temporary file). Collective.
@*/
PetscErrorCode MbsMeasurementWrite(MPI_Comm comm, const char path[], const MbsMeasurement *meas)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    MbsH5Writer writer;

    PetscCall(MbsH5WriterOpen(path, &writer));
    PetscCall(MbsMeasurementWriteGroups_Private(&writer, meas));
    PetscCall(MbsH5WriteProvenance(&writer, comm));
    PetscCall(MbsH5WriterClose(&writer));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckIncreasing_Private(const char filename[], const char path[], PetscInt n, const PetscReal x[], PetscReal lower, PetscBool strict_lower)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(strict_lower ? x[i] > lower : x[i] >= lower, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' has %g at index %" PetscInt_FMT ", must be %s %g", filename, path, (double)x[i], i, strict_lower ? ">" : ">=", (double)lower);
    PetscCheck(i == 0 || x[i] > x[i - 1], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' must increase strictly, but index %" PetscInt_FMT " has %g after %g", filename, path, i, (double)x[i], (double)x[i - 1]);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckLength_Private(const char filename[], const char path[], PetscInt n, PetscInt expected, const char reference[])
{
  PetscFunctionBeginUser;
  PetscCheck(n == expected, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' has %" PetscInt_FMT " entries but '%s' has %" PetscInt_FMT, filename, path, n, reference, expected);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCheckNonNegative_Private(const char filename[], const char path[], PetscInt n, const PetscReal x[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) PetscCheck(x[i] >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' has the negative amplitude %g at flat index %" PetscInt_FMT, filename, path, (double)x[i], i);
  PetscFunctionReturn(0);
}

/* The coefficients A, B of a group (/spectrum, /orders) come both or neither */
static PetscErrorCode MbsCheckPair_Private(const char filename[], const char group[], const PetscReal *a, const PetscReal *b)
{
  PetscFunctionBeginUser;
  PetscCheck(!a == !b, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s' has dataset '%s/%s' but no '%s/%s': the coefficients A, B come as a pair", filename, group, a ? "A" : "B", group, a ? "B" : "A");
  PetscFunctionReturn(0);
}

/* An order table (amplitudes or coefficients) is speeds x orders */
static PetscErrorCode MbsCheckOrderTable_Private(const char filename[], const char path[], const PetscInt dims[2], const MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  PetscCheck(dims[0] == meas->nspeed && dims[1] == meas->norder, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '%s' is %" PetscInt_FMT " x %" PetscInt_FMT ", expected speeds x orders = %" PetscInt_FMT " x %" PetscInt_FMT, filename, path, dims[0], dims[1],
             meas->nspeed, meas->norder);
  PetscFunctionReturn(0);
}

/*
  libhdf5 itself can crash on a damaged file (HDF5 1.10.8 reads past a corrupted global heap while it converts a
  variable-length string; tests/bad_inputs/fuzz_measurement holds such a file): the crash is then reported as one
  while reading this file, which is what the user can act on.
*/
static PetscErrorCode MbsMeasurementCrash_Private(int signal, void *path)
{
  (void)(*PetscErrorPrintf)("mbsid: crashed (signal %d) while reading measurement file '%s': the file is damaged (libhdf5 1.10 crashes on some damaged files); check it with h5dump or write it again\n", signal, (const char *)path);
  return PETSC_ERR_FILE_UNEXPECTED; /* non-zero: PETSc aborts every rank */
}

/*
  The tables of one channel below the group prefix ("" for the root of a one-channel file, "/channels/NAME" for a
  channel), with the channel's 'units' attribute on that group; *found says whether it holds any table
*/
static PetscErrorCode MbsMeasurementReadTables_Private(hid_t file, const char path[], const char prefix[], MbsMeasurement *meas, PetscBool *found_any)
{
  PetscBool found_freq, found_speed, found_t, found_frf, found;
  PetscInt  dims[2];
  char      ds[PETSC_MAX_PATH_LEN], ref[PETSC_MAX_PATH_LEN];

#define MBS_AT(buffer, name) (PetscSNPrintf(buffer, sizeof(buffer), "%s%s", prefix, name), buffer)
  PetscFunctionBeginUser;
  PetscCall(MbsH5ReadAttribute(file, path, prefix[0] ? prefix : "/", "units", meas->units, sizeof(meas->units), NULL));

  PetscCall(MbsH5ReadReals(file, path, MBS_AT(ref, "/spectrum/frequency"), 1, &meas->nfreq, &meas->frequency, "Hz", &found_freq));
  if (found_freq) {
    PetscCall(MbsCheckIncreasing_Private(path, ref, meas->nfreq, meas->frequency, 0, PETSC_FALSE));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/spectrum/amplitude"), 1, dims, &meas->amplitude, meas->units, NULL));
    PetscCall(MbsCheckLength_Private(path, ds, dims[0], meas->nfreq, ref));
    PetscCall(MbsCheckNonNegative_Private(path, ds, meas->nfreq, meas->amplitude));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/spectrum/A"), 1, dims, &meas->a, meas->units, &found));
    if (found) PetscCall(MbsCheckLength_Private(path, ds, dims[0], meas->nfreq, ref));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/spectrum/B"), 1, dims, &meas->b, meas->units, &found));
    if (found) PetscCall(MbsCheckLength_Private(path, ds, dims[0], meas->nfreq, ref));
    PetscCall(MbsCheckPair_Private(path, MBS_AT(ds, "/spectrum"), meas->a, meas->b));
  } else meas->nfreq = 0;

  PetscCall(MbsH5ReadReals(file, path, MBS_AT(ref, "/orders/speed"), 1, &meas->nspeed, &meas->speed, "rpm", &found_speed));
  if (found_speed) {
    PetscCall(MbsCheckIncreasing_Private(path, ref, meas->nspeed, meas->speed, 0, PETSC_TRUE));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/orders/order"), 1, &meas->norder, &meas->order, NULL, NULL));
    PetscCall(MbsCheckIncreasing_Private(path, ds, meas->norder, meas->order, 0, PETSC_TRUE));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/orders/amplitude"), 2, dims, &meas->order_amplitude, meas->units, NULL));
    PetscCall(MbsCheckOrderTable_Private(path, ds, dims, meas));
    PetscCall(MbsCheckNonNegative_Private(path, ds, meas->nspeed * meas->norder, meas->order_amplitude));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/orders/A"), 2, dims, &meas->order_a, meas->units, &found));
    if (found) PetscCall(MbsCheckOrderTable_Private(path, ds, dims, meas));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/orders/B"), 2, dims, &meas->order_b, meas->units, &found));
    if (found) PetscCall(MbsCheckOrderTable_Private(path, ds, dims, meas));
    PetscCall(MbsCheckPair_Private(path, MBS_AT(ds, "/orders"), meas->order_a, meas->order_b));
    PetscCall(MbsH5ReadAttribute(file, path, MBS_AT(ds, "/orders"), "domain", meas->order_domain, sizeof(meas->order_domain), &found));
    if (!found) PetscCall(PetscStrncpy(meas->order_domain, "time", sizeof(meas->order_domain)));
    PetscCheck(!strcmp(meas->order_domain, "time") || !strcmp(meas->order_domain, "angle"), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': attribute 'domain' of '%s' is '%s', expected 'time' or 'angle'", path, ds, meas->order_domain);
  } else meas->nspeed = 0;

  PetscCall(MbsH5ReadReals(file, path, MBS_AT(ref, "/signal/t"), 1, &meas->nsignal, &meas->t, "s", &found_t));
  if (found_t) {
    PetscCall(MbsCheckIncreasing_Private(path, ref, meas->nsignal, meas->t, -PETSC_MAX_REAL, PETSC_FALSE));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/signal/y"), 1, dims, &meas->y, meas->units, NULL));
    PetscCall(MbsCheckLength_Private(path, ds, dims[0], meas->nsignal, ref));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/signal/speed"), 1, dims, &meas->signal_speed, "rpm", &found));
    if (found) {
      PetscCall(MbsCheckLength_Private(path, ds, dims[0], meas->nsignal, ref));
      PetscCall(MbsCheckNonNegative_Private(path, ds, meas->nsignal, meas->signal_speed));
    }
  } else meas->nsignal = 0;

  found_frf = PETSC_FALSE;
  if (meas->nfrf > 0) { /* the frequencies are the root's, read before any channel */
    char unit[sizeof(meas->units) + 8];

    PetscCall(PetscSNPrintf(unit, sizeof(unit), "%s/N", meas->units));
    PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/frf/real"), 1, dims, &meas->frf_re, unit, &found_frf));
    if (found_frf) {
      PetscCall(MbsCheckLength_Private(path, ds, dims[0], meas->nfrf, "/frf/frequency_hz"));
      PetscCall(MbsH5ReadReals(file, path, MBS_AT(ds, "/frf/imag"), 1, dims, &meas->frf_im, unit, NULL));
      PetscCall(MbsCheckLength_Private(path, ds, dims[0], meas->nfrf, "/frf/frequency_hz"));
    }
  }
  *found_any = (PetscBool)(found_freq || found_speed || found_t || found_frf);
#undef MBS_AT
  PetscFunctionReturn(0);
}

/* The names of the groups in /channels, in increasing order */
static herr_t MbsChannelName_Private(hid_t group, const char name[], const H5L_info_t *info, void *ctx)
{
  MbsMeasurement *meas = (MbsMeasurement *)ctx;

  (void)group;
  (void)info;
  if (PetscStrncpy(meas->channel[meas->nchannel].output, name, sizeof(meas->channel[meas->nchannel].output))) return -1;
  meas->nchannel++;
  return 0;
}

/* The channels /channels/NAME of a multi-channel file, each checked as the root of a one-channel file is */
static PetscErrorCode MbsMeasurementReadChannels_Private(hid_t file, const char path[], MbsMeasurement *meas)
{
  hid_t      group = H5Gopen2(file, "/channels", H5P_DEFAULT);
  H5G_info_t info;
  PetscInt   nchannel;

  PetscFunctionBeginUser;
  MbsCallHDF5(group, path, "/channels");
  MbsCallHDF5(H5Gget_info(group, &info), path, "/channels");
  nchannel = (PetscInt)info.nlinks;
  PetscCheck(nchannel > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': group '/channels' holds no channel; give each measured channel a group /channels/NAME", path);
  PetscCall(PetscCalloc1(nchannel, &meas->channel));
  MbsCallHDF5(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, NULL, MbsChannelName_Private, meas), path, "/channels");
  MbsCallHDF5(H5Gclose(group), path, "/channels");
  for (PetscInt c = 0; c < meas->nchannel; c++) {
    char      prefix[sizeof(meas->channel[c].output) + 16];
    PetscBool found;

    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "/channels/%s", meas->channel[c].output));
    meas->channel[c].nfrf = meas->nfrf; /* a channel's copy of the root's frequencies: its tables are complete alone */
    if (meas->nfrf) {
      PetscCall(PetscMalloc1(meas->nfrf, &meas->channel[c].frf_frequency));
      PetscCall(PetscArraycpy(meas->channel[c].frf_frequency, meas->frf_frequency, meas->nfrf));
    }
    PetscCall(PetscStrncpy(meas->channel[c].frf_load, meas->frf_load, sizeof(meas->channel[c].frf_load)));
    PetscCall(MbsMeasurementReadTables_Private(file, path, prefix, &meas->channel[c], &found));
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': channel group '%s' holds no measurement: it needs %s/spectrum/frequency, %s/orders/speed, %s/signal/t or %s/frf/real", path, prefix, prefix, prefix, prefix, prefix);
    PetscCall(PetscStrncpy(meas->channel[c].model, meas->model, sizeof(meas->channel[c].model)));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsMeasurementRead_Private(MPI_Comm comm, const char path[], MbsMeasurement *meas, hid_t *opened)
{
  hid_t     file;
  PetscBool found_tables = PETSC_FALSE, found_tacho, found_profile, found;
  PetscInt  dims[2];
  htri_t    channels;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(meas, sizeof(*meas)));
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  PetscCheck(access(path, R_OK) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read measurement file '%s': no such file or no permission", path);
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open measurement file '%s': not an HDF5 file, or truncated", path);
  *opened = file;

  PetscCall(MbsH5ReadAttribute(file, path, "/", "model", meas->model, sizeof(meas->model), &found));
  PetscCall(MbsH5ReadAttribute(file, path, "/", "created_by", meas->created_by, sizeof(meas->created_by), &found));
  PetscCall(MbsH5ReadReals(file, path, "/frf/frequency_hz", 1, &meas->nfrf, &meas->frf_frequency, "Hz", &found));
  if (found) {
    PetscCall(MbsCheckIncreasing_Private(path, "/frf/frequency_hz", meas->nfrf, meas->frf_frequency, 0, PETSC_TRUE));
    PetscCall(MbsH5ReadAttribute(file, path, "/frf/frequency_hz", "load", meas->frf_load, sizeof(meas->frf_load), NULL));
  } else meas->nfrf = 0;
  channels = H5Lexists(file, "/channels", H5P_DEFAULT);
  MbsCallHDF5(channels, path, "/channels");
  if (channels) PetscCall(MbsMeasurementReadChannels_Private(file, path, meas));
  else {
    PetscCall(MbsH5ReadAttribute(file, path, "/", "output", meas->output, sizeof(meas->output), &found));
    PetscCall(MbsMeasurementReadTables_Private(file, path, "", meas, &found_tables));
  }

  PetscCall(MbsH5ReadReals(file, path, "/tacho/t", 1, &meas->ntacho, &meas->tacho, "s", &found_tacho));
  if (found_tacho) PetscCall(MbsCheckIncreasing_Private(path, "/tacho/t", meas->ntacho, meas->tacho, -PETSC_MAX_REAL, PETSC_FALSE));
  else meas->ntacho = 0;

  PetscCall(MbsH5ReadReals(file, path, "/speed_profile/t", 1, &meas->nprofile, &meas->profile_t, "s", &found_profile));
  if (found_profile) {
    PetscCall(MbsCheckIncreasing_Private(path, "/speed_profile/t", meas->nprofile, meas->profile_t, -PETSC_MAX_REAL, PETSC_FALSE));
    PetscCall(MbsH5ReadReals(file, path, "/speed_profile/rpm", 1, dims, &meas->profile_rpm, "rpm", NULL));
    PetscCall(MbsCheckLength_Private(path, "/speed_profile/rpm", dims[0], meas->nprofile, "/speed_profile/t"));
    PetscCall(MbsH5ReadReals(file, path, "/speed_profile/angle", 1, dims, &meas->profile_angle, "rad", &found));
    if (found) {
      PetscCall(MbsCheckLength_Private(path, "/speed_profile/angle", dims[0], meas->nprofile, "/speed_profile/t"));
      PetscCall(MbsCheckIncreasing_Private(path, "/speed_profile/angle", meas->nprofile, meas->profile_angle, -PETSC_MAX_REAL, PETSC_FALSE));
    }
    for (PetscInt i = 0; i < meas->nprofile; i++)
      PetscCheck(meas->profile_rpm[i] > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s': dataset '/speed_profile/rpm' has %g at index %" PetscInt_FMT ", must be > 0", path, (double)meas->profile_rpm[i], i);
  } else meas->nprofile = 0;

  PetscCheck(meas->nchannel || found_tables || found_tacho || found_profile, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "File '%s' holds no measurement: it needs /spectrum/frequency, /orders/speed, /signal/t, /tacho/t, /speed_profile/t or /channels", path);
  *opened = H5I_INVALID_HID;
  MbsCallHDF5(H5Fclose(file), path, "/");
  PetscFunctionReturn(0);
}

/* A refused file leaves nothing behind: the objects a failed read left open in it (which would keep it open), the
   file itself, and the arrays read so far */
static PetscErrorCode MbsMeasurementDiscard_Private(hid_t file, MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  if (file >= 0) {
    unsigned types = H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL;
    ssize_t  nopen = H5Fget_obj_count(file, types);

    if (nopen > 0) {
      hid_t *ids;

      PetscCall(PetscMalloc1(nopen, &ids));
      nopen = H5Fget_obj_ids(file, types, (size_t)nopen, ids);
      for (ssize_t i = 0; i < nopen; i++) {
        H5I_type_t type = H5Iget_type(ids[i]);

        if (type == H5I_DATASET) H5Dclose(ids[i]);
        else if (type == H5I_GROUP) H5Gclose(ids[i]);
        else if (type == H5I_DATATYPE) H5Tclose(ids[i]);
        else if (type == H5I_ATTR) H5Aclose(ids[i]);
      }
      PetscCall(PetscFree(ids));
    }
    H5Fclose(file);
  }
  PetscCall(MbsMeasurementReset(meas));
  PetscFunctionReturn(0);
}

/* libhdf5 can also loop for ever on a damaged file (in the same global heap): a read that outlasts
   -measurement_read_timeout ends the run with the file's name; only async-signal-safe calls in the handler */
static char MbsReadTimeoutMessage[PETSC_MAX_PATH_LEN + 256];

static void MbsMeasurementReadTimeout_Private(int signal)
{
  ssize_t written = write(STDERR_FILENO, MbsReadTimeoutMessage, strlen(MbsReadTimeoutMessage));

  (void)written;
  _exit(PETSC_ERR_FILE_UNEXPECTED);
}

/*@C
  MbsMeasurementOptions - Reads (and with -help lists) the options of reading measurement files: the longest time a
  read may take [s]. Collective.
@*/
PetscErrorCode MbsMeasurementOptions(MPI_Comm comm, PetscReal *timeout)
{
  PetscFunctionBeginUser;
  *timeout = 300;
  MbsOptionsBegin(comm, NULL, "Measurement files", "MbsMeasurementRead");
  PetscCall(PetscOptionsReal("-measurement_read_timeout", "Longest time reading a measurement file may take [s] (a damaged file can make libhdf5 loop)", "MbsMeasurementRead", *timeout, timeout, NULL));
  MbsOptionsEnd();
  PetscCheck(*timeout > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-measurement_read_timeout must be positive, got %g", (double)*timeout);
  PetscFunctionReturn(0);
}

/*@C
  MbsMeasurementRead - Reads and validates a measurement file; every rank reads it. A refused file leaves nothing
  allocated and nothing open. Collective.
@*/
PetscErrorCode MbsMeasurementRead(MPI_Comm comm, const char path[], MbsMeasurement *meas)
{
  PetscErrorCode ierr;
  PetscReal      timeout;
  hid_t          opened = H5I_INVALID_HID;
  PetscBool      no_signal_handler;
  void (*previous)(int);

  PetscFunctionBeginUser;
  PetscCall(MbsMeasurementOptions(comm, &timeout));
  PetscCall(PetscSNPrintf(MbsReadTimeoutMessage, sizeof(MbsReadTimeoutMessage), "mbsid: reading measurement file '%s' did not finish within -measurement_read_timeout %g s: the file is damaged (libhdf5 loops on it); check it with h5dump or write it again\n", path, (double)timeout));
  /* PETSc's -no_signal_handler leaves a crash to the debugger (or to libFuzzer, which then keeps the input) */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-no_signal_handler", &no_signal_handler));
  if (!no_signal_handler) PetscCall(PetscPushSignalHandler(MbsMeasurementCrash_Private, (void *)path));
  previous = signal(SIGALRM, MbsMeasurementReadTimeout_Private);
  alarm((unsigned)PetscCeilReal(timeout));
  ierr = MbsMeasurementRead_Private(comm, path, meas, &opened);
  alarm(0);
  signal(SIGALRM, previous);
  if (!no_signal_handler) PetscCall(PetscPopSignalHandler());
  if (ierr) PetscCall(MbsMeasurementDiscard_Private(opened, meas));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/*@C
  MbsMeasurementReset - Frees the arrays of a measurement read by MbsMeasurementRead(). Not collective.
@*/
PetscErrorCode MbsMeasurementReset(MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < meas->nchannel; c++) PetscCall(MbsMeasurementReset(&meas->channel[c]));
  PetscCall(PetscFree(meas->channel));
  PetscCall(PetscFree(meas->frequency));
  PetscCall(PetscFree(meas->amplitude));
  PetscCall(PetscFree(meas->a));
  PetscCall(PetscFree(meas->b));
  PetscCall(PetscFree(meas->speed));
  PetscCall(PetscFree(meas->order));
  PetscCall(PetscFree(meas->order_amplitude));
  PetscCall(PetscFree(meas->order_a));
  PetscCall(PetscFree(meas->order_b));
  PetscCall(PetscFree(meas->t));
  PetscCall(PetscFree(meas->y));
  PetscCall(PetscFree(meas->signal_speed));
  PetscCall(PetscFree(meas->tacho));
  PetscCall(PetscFree(meas->profile_t));
  PetscCall(PetscFree(meas->profile_rpm));
  PetscCall(PetscFree(meas->profile_angle));
  PetscCall(PetscFree(meas->frf_frequency));
  PetscCall(PetscFree(meas->frf_re));
  PetscCall(PetscFree(meas->frf_im));
  PetscCall(PetscMemzero(meas, sizeof(*meas)));
  PetscFunctionReturn(0);
}

/*@C
  MbsMeasurementGetChannels - The measured channels: the named channels of a multi-channel file, or the measurement
  itself as its one channel. Not collective.
@*/
PetscErrorCode MbsMeasurementGetChannels(const MbsMeasurement *meas, PetscInt *nchannel, const MbsMeasurement **channel)
{
  PetscFunctionBeginUser;
  *nchannel = meas->nchannel ? meas->nchannel : 1;
  *channel  = meas->nchannel ? meas->channel : meas;
  PetscFunctionReturn(0);
}
