/*
  mbsid import: a table of a test bench (CSV, semicolon/tab/blank-separated; csv.c) to a measurement file
  (measurement.c). The columns each kind takes, chosen by -columns (header names or 1-based indices):

    signal         time, value[, speed]            (default 1,2)      /signal/t, /signal/y[, /signal/speed]
                   with -channels A,B,...: time, a value column per channel (default: all, in that order)
                                                                      /channels/A/signal/t, /channels/A/signal/y, ...
    orders         speed, amplitude of each order  (default: all)     /orders/speed, /orders/order, /orders/amplitude
    spectrum       frequency, amplitude            (default 1,2)      /spectrum/frequency, /spectrum/amplitude
    tacho          pulse time, or time, voltage    (default: 1 or 2)  /tacho/t (from a voltage: its rising edges)
    speed_profile  time, speed[, crank angle]      (default 1,2)      /speed_profile/t, /speed_profile/rpm[, /angle]

  Values are converted to the schema's units (s, rpm, Hz, and the SI unit of -units). Phases (-phase_columns, one
  per amplitude column) give the coefficients of y = X cos(w t + psi) = a cos(w t) + b sin(w t): a = X cos psi,
  b = -X sin psi (fourier.c's A_k, B_k). Every value is checked where it stands (file, line, column) before anything
  is written: times, speeds and frequencies increase strictly, amplitudes are >= 0, speeds of order cuts > 0.
*/
#include "commands/commandimpl.h"
#include <ctype.h>

typedef enum {
  MBS_IMPORT_SIGNAL,
  MBS_IMPORT_ORDERS,
  MBS_IMPORT_SPECTRUM,
  MBS_IMPORT_TACHO,
  MBS_IMPORT_SPEED_PROFILE
} MbsImportKind;
static const char *const MbsImportKinds[] = {"signal", "orders", "spectrum", "tacho", "speed_profile", "MbsImportKind", "MBS_IMPORT_", NULL};

/* A unit of a column: the schema's unit it converts to, and the factor */
typedef struct {
  const char *name, *si;
  PetscReal   factor;
} MbsUnit;

static const MbsUnit MbsValueUnits[] = {
  {"rad",     "rad",     1             },
  {"mrad",    "rad",     1e-3          },
  {"urad",    "rad",     1e-6          },
  {"deg",     "rad",     PETSC_PI / 180},
  {"m",       "m",       1             },
  {"mm",      "m",       1e-3          },
  {"um",      "m",       1e-6          },
  {"rad/s",   "rad/s",   1             },
  {"deg/s",   "rad/s",   PETSC_PI / 180},
  {"m/s",     "m/s",     1             },
  {"mm/s",    "m/s",     1e-3          },
  {"rad/s^2", "rad/s^2", 1             },
  {"m/s^2",   "m/s^2",   1             },
  {NULL,      NULL,      0             }
};
static const MbsUnit MbsTimeUnits[] = {
  {"s",  "s",  1   },
  {"ms", "s",  1e-3},
  {"us", "s",  1e-6},
  {NULL, NULL, 0   }
};
static const MbsUnit MbsSpeedUnits[] = {
  {"rpm",   "rpm", 1            },
  {"Hz",    "rpm", 60           },
  {"rad/s", "rpm", 30 / PETSC_PI},
  {NULL,    NULL,  0            }
};
static const MbsUnit MbsAngleUnits[] = {
  {"rad", "rad", 1             },
  {"deg", "rad", PETSC_PI / 180},
  {NULL,  NULL,  0             }
};

static PetscErrorCode MbsUnitFind_Private(const MbsUnit table[], const char option[], const char name[], const MbsUnit **unit)
{
  char known[256] = "";

  PetscFunctionBeginUser;
  for (*unit = table; (*unit)->name; (*unit)++) {
    PetscBool same;

    PetscCall(PetscStrcmp((*unit)->name, name, &same));
    if (same) PetscFunctionReturn(0);
    PetscCall(MbsStrlcat(known, (*unit) == table ? "" : ", ", sizeof(known)));
    PetscCall(MbsStrlcat(known, (*unit)->name, sizeof(known)));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s %s: unknown unit; known: %s", option, name, known);
}

/* What the file's columns mean, from the options */
typedef struct {
  MbsImportKind  kind;
  char           csv[PETSC_MAX_PATH_LEN], output[PETSC_MAX_PATH_LEN], model[64], output_name[64];
  char          *columns[64], *phase_columns[64];
  char          *channels[64];     /* -channels: a named channel per value column of a signal */
  const MbsUnit *channel_unit[64]; /* their units (-channel_units, default -units) */
  PetscInt       ncolumns, nphase_columns, norders, nchannels;
  PetscReal      orders[64];
  const MbsUnit *value_unit, *time_unit, *speed_unit, *phase_unit, *angle_unit;
  PetscReal      tacho_threshold, tacho_hysteresis; /* where not set, from the voltage's range */
  PetscBool      tacho_threshold_set, tacho_hysteresis_set, decimal_comma;
  MbsOrderDomain domain;
} MbsImport;

static PetscErrorCode MbsImportColumnFill_Private(const MbsCsv *csv, PetscInt c, const MbsUnit *unit, const char what[], const char where[], PetscReal lower, PetscBool strict, PetscBool increasing, PetscReal out[])
{
  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < csv->nrow; r++) {
    PetscReal v = csv->value[r * csv->ncol + c];

    PetscCheck(v > lower || (!strict && v == lower), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", %s: the %s %g %s is %s %g", csv->path, csv->line[r], where, what, (double)v, unit->name, strict ? "not above" : "below", (double)lower);
    if (increasing && r > 0) {
      PetscReal previous = csv->value[(r - 1) * csv->ncol + c];

      PetscCheck(v != previous, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", %s: the %s %g %s repeats line %" PetscInt_FMT "; each must appear once", csv->path, csv->line[r], where, what, (double)v, unit->name,
                 csv->line[r - 1]);
      PetscCheck(v > previous, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", %s: the %s %g %s comes after %g on line %" PetscInt_FMT "; they must increase", csv->path, csv->line[r], where, what, (double)v, unit->name, (double)previous,
                 csv->line[r - 1]);
    }
    out[r] = v * unit->factor;
    PetscCheck(!PetscIsInfOrNanReal(out[r]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", %s: the %s %g %s is %g %s, beyond the range of numbers", csv->path, csv->line[r], where, what, (double)v, unit->name, (double)out[r],
               unit->si);
  }
  PetscFunctionReturn(0);
}

/* Column c of the file, converted, into out[]; checked against lower (strictly when strict) and, with increasing, for
   strict increase, each failure named by file, line and column */
static PetscErrorCode MbsImportColumn_Private(const MbsCsv *csv, PetscInt c, const MbsUnit *unit, const char what[], PetscReal lower, PetscBool strict, PetscBool increasing, PetscReal **out)
{
  char where[128];

  PetscFunctionBeginUser;
  PetscCall(MbsCsvColumnName(csv, c, where, sizeof(where)));
  PetscCall(PetscMalloc1(csv->nrow, out));
  MbsCallUndo(MbsImportColumnFill_Private(csv, c, unit, what, where, lower, strict, increasing, *out), PetscFree(*out));
  PetscFunctionReturn(0);
}

/* The order of an amplitude column from its header name: the number it ends with ("order 6", "O6", "k2.5", and with a
   decimal comma "Order 4,5"), read whole from its first digit ("order 1e400" is 1e400, refused, not 400) */
static PetscErrorCode MbsImportOrderFromName_Private(const MbsCsv *csv, PetscInt c, PetscBool decimal_comma, PetscReal *order)
{
  char name[256] = "", *end;

  PetscFunctionBeginUser;
  if (csv->name) PetscCall(PetscStrncpy(name, csv->name[c], sizeof(name)));
  for (char *p = name; decimal_comma && *p; p++)
    if (*p == ',') *p = '.';
  *order = 0;
  for (const char *p = name; *p && !*order; p++)
    if (isdigit((unsigned char)*p) && (p == name || !(isdigit((unsigned char)p[-1]) || p[-1] == '.'))) {
      PetscReal value = strtod(p, &end);

      if (!*end) *order = value;
    }
  PetscCheck(*order > 0 && PetscIsNormalReal(*order), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "CSV file '%s': the order of column %" PetscInt_FMT " cannot be read from its name '%s'%s; give the orders with -orders o1,o2,...", csv->path, c + 1,
             csv->name ? csv->name[c] : "", PetscIsInfOrNanReal(*order) ? " (beyond the range of numbers)" : "");
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsImportColumns_Private(const MbsImport *im, const MbsCsv *csv, PetscInt min, PetscInt max, PetscInt col[], PetscInt *ncol)
{
  static const char *const defaults[] = {"1", "2"};

  PetscFunctionBeginUser;
  if (im->ncolumns) {
    PetscCheck(im->ncolumns >= min && im->ncolumns <= max, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-columns: mbsid import -kind %s takes %" PetscInt_FMT "%s%" PetscInt_FMT " column(s), got %" PetscInt_FMT, MbsImportKinds[im->kind], min, max > min ? " to " : "", max > min ? max : min, im->ncolumns);
    for (PetscInt i = 0; i < im->ncolumns; i++) PetscCall(MbsCsvFindColumn(csv, im->columns[i], &col[i]));
    *ncol = im->ncolumns;
  } else if (max > 2) { /* order cuts: every column, the first the speed */
    PetscCheck(csv->ncol >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has %" PetscInt_FMT " column; order cuts need a speed and at least one amplitude column", csv->path, csv->ncol);
    PetscCheck(csv->ncol <= max, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has %" PetscInt_FMT " columns; order cuts take a speed and at most %" PetscInt_FMT " orders: choose them with -columns", csv->path, csv->ncol, max - 1);
    for (PetscInt i = 0; i < csv->ncol; i++) col[i] = i;
    *ncol = csv->ncol;
  } else {
    for (PetscInt i = 0; i < min; i++) PetscCall(MbsCsvFindColumn(csv, defaults[i], &col[i]));
    *ncol = min;
  }
  for (PetscInt i = 0; i < *ncol; i++)
    for (PetscInt j = 0; j < i; j++) PetscCheck(col[i] != col[j], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-columns: column %" PetscInt_FMT " of CSV file '%s' is chosen twice", col[i] + 1, csv->path);
  PetscFunctionReturn(0);
}

/* Amplitudes (and, with -phase_columns, coefficients) of nampl columns into rows x nampl arrays */
static PetscErrorCode MbsImportAmplitudes_Private(const MbsImport *im, const MbsCsv *csv, PetscInt nampl, const PetscInt col[], PetscReal **amplitude, PetscReal **a, PetscReal **b)
{
  PetscFunctionBeginUser;
  PetscCheck(!im->nphase_columns || im->nphase_columns == nampl, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-phase_columns: %" PetscInt_FMT " phase column(s) for %" PetscInt_FMT " amplitude column(s) of CSV file '%s'; give one per amplitude", im->nphase_columns, nampl,
             csv->path);
  PetscCall(PetscMalloc1(csv->nrow * nampl, amplitude));
  *a = *b = NULL;
  if (im->nphase_columns) { /* freed one by one with the measurement */
    PetscCall(PetscMalloc1(csv->nrow * nampl, a));
    PetscCall(PetscMalloc1(csv->nrow * nampl, b));
  }
  for (PetscInt j = 0; j < nampl; j++) {
    PetscReal *x, *psi = NULL;

    PetscCall(MbsImportColumn_Private(csv, col[j], im->value_unit, "amplitude", 0, PETSC_FALSE, PETSC_FALSE, &x));
    if (im->nphase_columns) {
      PetscInt phase_col;

      MbsCallUndo(MbsCsvFindColumn(csv, im->phase_columns[j], &phase_col), PetscFree(x));
      MbsCallUndo(MbsImportColumn_Private(csv, phase_col, im->phase_unit, "phase", PETSC_MIN_REAL, PETSC_FALSE, PETSC_FALSE, &psi), PetscFree(x));
    }
    for (PetscInt r = 0; r < csv->nrow; r++) {
      (*amplitude)[r * nampl + j] = x[r];
      if (psi) {
        (*a)[r * nampl + j] = x[r] * PetscCosReal(psi[r]);
        (*b)[r * nampl + j] = -x[r] * PetscSinReal(psi[r]);
      }
    }
    PetscCall(PetscFree(x));
    PetscCall(PetscFree(psi));
  }
  PetscFunctionReturn(0);
}

/* The rising edges of the voltage v (rows of time t) into edge[], as described at MbsImportTachoEdges_Private */
static PetscErrorCode MbsImportTachoEdgesFill_Private(const MbsCsv *csv, const char where[], const PetscReal t[], PetscInt c, PetscReal threshold, PetscReal hysteresis, PetscInt *nedge, PetscReal edge[])
{
  PetscReal crossing = 0;
  PetscBool armed    = PETSC_FALSE;

  PetscFunctionBeginUser;
  *nedge = 0;
  for (PetscInt r = 0; r < csv->nrow; r++) {
    PetscReal v = csv->value[r * csv->ncol + c], previous = r ? csv->value[(r - 1) * csv->ncol + c] : v;

    if (previous < threshold && v >= threshold) crossing = t[r - 1] + (threshold - previous) / (v - previous) * (t[r] - t[r - 1]);
    if (armed && v >= threshold + hysteresis / 2) {
      edge[(*nedge)++] = crossing;
      armed            = PETSC_FALSE;
    } else if (v <= threshold - hysteresis / 2) armed = PETSC_TRUE;
  }
  PetscCheck(*nedge >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', %s: %" PetscInt_FMT " rising edge(s) through %g with hysteresis %g (-tacho_threshold, -tacho_hysteresis); a tachometer needs at least 2 pulses (a table of pulse times: choose their column with -columns)",
             csv->path, where, *nedge, (double)threshold, (double)hysteresis);
  PetscFunctionReturn(0);
}

/*
  The pulses of a sampled sensor voltage (-kind tacho with columns time, voltage): its rising edges through
  -tacho_threshold (default: the middle of its range). An edge counts once the voltage has been at or below
  threshold - hysteresis/2 and reaches threshold + hysteresis/2, so that noise on an edge gives one pulse; it is the
  last upward crossing of the threshold before, interpolated linearly between the two samples around it.
*/
static PetscErrorCode MbsImportTachoEdges_Private(MPI_Comm comm, const MbsImport *im, const MbsCsv *csv, const PetscInt col[], MbsMeasurement *meas)
{
  PetscReal *t, low = PETSC_MAX_REAL, high = PETSC_MIN_REAL, threshold, hysteresis;
  char       where[128];

  PetscFunctionBeginUser;
  PetscCall(MbsCsvColumnName(csv, col[1], where, sizeof(where)));
  for (PetscInt r = 0; r < csv->nrow; r++) {
    low  = PetscMin(low, csv->value[r * csv->ncol + col[1]]);
    high = PetscMax(high, csv->value[r * csv->ncol + col[1]]);
  }
  threshold  = im->tacho_threshold_set ? im->tacho_threshold : (low + high) / 2;
  hysteresis = im->tacho_hysteresis_set ? im->tacho_hysteresis : (high - low) / 10;
  PetscCheck(high > low, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', %s: the voltage is %g on every row; -kind tacho takes one column of pulse times, or two of a sampled sensor voltage (time, voltage) whose rising edges are the pulses",
             csv->path, where, (double)low);
  PetscCheck(hysteresis > 0 && threshold - hysteresis / 2 > low && threshold + hysteresis / 2 < high, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-tacho_threshold %g -tacho_hysteresis %g: the band from %g to %g must lie inside the range %g to %g of the voltage in CSV file '%s', %s, with a hysteresis above 0", (double)threshold, (double)hysteresis, (double)(threshold - hysteresis / 2), (double)(threshold + hysteresis / 2), (double)low, (double)high,
             csv->path, where);
  PetscCall(MbsImportColumn_Private(csv, col[0], im->time_unit, "time", PETSC_MIN_REAL, PETSC_FALSE, PETSC_TRUE, &t));
  PetscCall(PetscMalloc1(csv->nrow, &meas->tacho));
  MbsCallCleanup(MbsImportTachoEdgesFill_Private(csv, where, t, col[1], threshold, hysteresis, &meas->ntacho, meas->tacho), PetscFree(t));
  PetscCall(PetscPrintf(comm, "Pulses of '%s': %" PetscInt_FMT " rising edges of %s through %g with hysteresis %g\n", csv->path, meas->ntacho, where, (double)threshold, (double)hysteresis));
  PetscFunctionReturn(0);
}

/* A signal of several channels: the time column, then a value column per channel of -channels */
static PetscErrorCode MbsImportChannels_Private(const MbsImport *im, const MbsCsv *csv, MbsMeasurement *meas)
{
  PetscInt col[65], ncol = 1 + im->nchannels;

  PetscFunctionBeginUser;
  if (im->ncolumns) PetscCall(MbsImportColumns_Private(im, csv, ncol, ncol, col, &ncol));
  else {
    PetscCheck(csv->ncol == ncol, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has %" PetscInt_FMT " columns, but -channels names %" PetscInt_FMT " channels: the table takes a time column and one per channel; choose them with -columns",
               csv->path, csv->ncol, im->nchannels);
    for (PetscInt i = 0; i < ncol; i++) col[i] = i;
  }
  PetscCall(PetscCalloc1(im->nchannels, &meas->channel));
  for (PetscInt c = 0; c < im->nchannels; c++) {
    MbsMeasurement *channel = &meas->channel[c];

    meas->nchannel++;
    PetscCall(PetscStrncpy(channel->output, im->channels[c], sizeof(channel->output)));
    PetscCall(PetscStrncpy(channel->units, im->channel_unit[c]->si, sizeof(channel->units)));
    PetscCall(PetscStrncpy(channel->model, meas->model, sizeof(channel->model)));
    channel->nsignal = csv->nrow;
    PetscCall(MbsImportColumn_Private(csv, col[0], im->time_unit, "time", PETSC_MIN_REAL, PETSC_FALSE, PETSC_TRUE, &channel->t));
    PetscCall(MbsImportColumn_Private(csv, col[1 + c], im->channel_unit[c], "value", PETSC_MIN_REAL, PETSC_FALSE, PETSC_FALSE, &channel->y));
  }
  PetscFunctionReturn(0);
}

/* The measurement the table holds, by kind */
static PetscErrorCode MbsImportTable_Private(MPI_Comm comm, const MbsImport *im, const MbsCsv *csv, MbsMeasurement *meas)
{
  PetscInt col[65], ncol;

  PetscFunctionBeginUser;
  switch (im->kind) {
  case MBS_IMPORT_SIGNAL:
    PetscCheck(csv->nrow >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has 1 row; a signal needs at least 2 samples", csv->path);
    if (im->nchannels) {
      PetscCall(MbsImportChannels_Private(im, csv, meas));
      break;
    }
    PetscCall(MbsImportColumns_Private(im, csv, 2, 3, col, &ncol));
    meas->nsignal = csv->nrow;
    PetscCall(MbsImportColumn_Private(csv, col[0], im->time_unit, "time", PETSC_MIN_REAL, PETSC_FALSE, PETSC_TRUE, &meas->t));
    PetscCall(MbsImportColumn_Private(csv, col[1], im->value_unit, "value", PETSC_MIN_REAL, PETSC_FALSE, PETSC_FALSE, &meas->y));
    if (ncol == 3) PetscCall(MbsImportColumn_Private(csv, col[2], im->speed_unit, "speed", 0, PETSC_FALSE, PETSC_FALSE, &meas->signal_speed));
    break;
  case MBS_IMPORT_ORDERS:
    PetscCall(MbsImportColumns_Private(im, csv, 2, 65, col, &ncol));
    meas->nspeed = csv->nrow;
    meas->norder = ncol - 1;
    PetscCheck(!im->norders || im->norders == meas->norder, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-orders: %" PetscInt_FMT " order(s) for %" PetscInt_FMT " amplitude column(s) of CSV file '%s'", im->norders, meas->norder, csv->path);
    PetscCall(PetscMalloc1(meas->norder, &meas->order));
    for (PetscInt o = 0; o < meas->norder; o++) {
      if (im->norders) meas->order[o] = im->orders[o];
      else PetscCall(MbsImportOrderFromName_Private(csv, col[o + 1], im->decimal_comma, &meas->order[o]));
      PetscCheck(meas->order[o] > 0 && !PetscIsInfOrNanReal(meas->order[o]) && (o == 0 || meas->order[o] > meas->order[o - 1]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "CSV file '%s': order %g (column %" PetscInt_FMT ") must be a positive number above the order before it; list the amplitude columns by increasing order",
                 csv->path, (double)meas->order[o], col[o + 1] + 1);
    }
    PetscCall(MbsImportColumn_Private(csv, col[0], im->speed_unit, "speed", 0, PETSC_TRUE, PETSC_TRUE, &meas->speed));
    PetscCall(MbsImportAmplitudes_Private(im, csv, meas->norder, col + 1, &meas->order_amplitude, &meas->order_a, &meas->order_b));
    PetscCall(PetscStrncpy(meas->order_domain, MbsOrderDomains[im->domain], sizeof(meas->order_domain)));
    break;
  case MBS_IMPORT_SPECTRUM:
    PetscCall(MbsImportColumns_Private(im, csv, 2, 2, col, &ncol));
    meas->nfreq = csv->nrow;
    PetscCall(MbsImportColumn_Private(csv, col[0], &(MbsUnit){"Hz", "Hz", 1}, "frequency", 0, PETSC_FALSE, PETSC_TRUE, &meas->frequency));
    PetscCall(MbsImportAmplitudes_Private(im, csv, 1, col + 1, &meas->amplitude, &meas->a, &meas->b));
    break;
  case MBS_IMPORT_TACHO: /* a column of pulse times, or a sampled voltage: a table of more columns is neither */
    PetscCheck(im->ncolumns || csv->ncol <= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has %" PetscInt_FMT " columns; -kind tacho takes one column of pulse times, or two of a sampled sensor voltage (time, voltage) whose rising edges are the pulses: choose them with -columns",
               csv->path, csv->ncol);
    PetscCall(MbsImportColumns_Private(im, csv, im->ncolumns ? 1 : csv->ncol, 2, col, &ncol));
    PetscCheck(csv->nrow >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has 1 row; a tachometer needs at least 2 pulses", csv->path);
    if (ncol == 2) {
      PetscCall(MbsImportTachoEdges_Private(comm, im, csv, col, meas));
      break;
    }
    PetscCheck(!im->tacho_threshold_set && !im->tacho_hysteresis_set, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-tacho_threshold, -tacho_hysteresis find the pulses in a sampled voltage (columns time,voltage), but CSV file '%s' is read as one column of pulse times",
               csv->path);
    meas->ntacho = csv->nrow;
    PetscCall(MbsImportColumn_Private(csv, col[0], im->time_unit, "pulse time", PETSC_MIN_REAL, PETSC_FALSE, PETSC_TRUE, &meas->tacho));
    break;
  case MBS_IMPORT_SPEED_PROFILE:
    PetscCall(MbsImportColumns_Private(im, csv, 2, 3, col, &ncol));
    PetscCheck(csv->nrow >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has 1 row; a speed profile needs at least 2", csv->path);
    meas->nprofile = csv->nrow;
    PetscCall(MbsImportColumn_Private(csv, col[0], im->time_unit, "time", PETSC_MIN_REAL, PETSC_FALSE, PETSC_TRUE, &meas->profile_t));
    PetscCall(MbsImportColumn_Private(csv, col[1], im->speed_unit, "speed", 0, PETSC_TRUE, PETSC_FALSE, &meas->profile_rpm));
    if (ncol == 3) PetscCall(MbsImportColumn_Private(csv, col[2], im->angle_unit, "crank angle", PETSC_MIN_REAL, PETSC_FALSE, PETSC_TRUE, &meas->profile_angle));
    break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsImportLabelModel_Private(MPI_Comm comm, const MbsImport *im, MbsModel model, MbsMeasurement *meas)
{
  const char *name, *unit;
  PetscBool   same;

  PetscFunctionBeginUser;
  PetscCall(MbsModelSetType(model, im->model));
  PetscCall(PetscStrncpy(meas->model, im->model, sizeof(meas->model)));
  for (PetscInt c = 0; c < im->nchannels; c++) { /* each named channel is an output channel of the model, in its unit */
    PetscInt index;

    PetscCall(MbsModelFindChannel(model, im->channels[c], "-channels", &index));
    PetscCall(MbsModelGetChannelInfo(model, index, NULL, &unit));
    PetscCall(PetscStrcmp(im->channel_unit[c]->si, unit, &same));
    PetscCheck(same, comm, PETSC_ERR_ARG_INCOMP, "-channel_units: channel %s is given in '%s', but output channel %s of model %s is in '%s'", im->channels[c], im->channel_unit[c]->si, im->channels[c], im->model, unit);
  }
  if (im->nchannels) PetscFunctionReturn(0);
  PetscCall(MbsModelGetOutputInfo(model, &name, &unit));
  PetscCall(PetscStrcmp(meas->units, unit, &same));
  PetscCheck(!im->value_unit || same, comm, PETSC_ERR_ARG_INCOMP, "-units %s gives values in '%s', but the output %s of model %s is in '%s'", im->value_unit->name, im->value_unit->si, name, im->model, unit);
  PetscCall(PetscStrcmp(meas->output, name, &same));
  PetscCheck(!im->output_name[0] || same, comm, PETSC_ERR_ARG_INCOMP, "-output %s: model %s's output is %s", im->output_name, im->model, name);
  PetscCall(PetscStrncpy(meas->model, im->model, sizeof(meas->model)));
  PetscCall(PetscStrncpy(meas->output, name, sizeof(meas->output)));
  PetscFunctionReturn(0);
}

/* The measurement's output and units: those of -model where given, which must then agree with -units and -output */
static PetscErrorCode MbsImportLabel_Private(MPI_Comm comm, const MbsImport *im, MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(meas->units, im->value_unit ? im->value_unit->si : "", sizeof(meas->units)));
  PetscCall(PetscStrncpy(meas->output, im->output_name, sizeof(meas->output)));
  if (im->model[0]) {
    MbsModel model;

    PetscCall(MbsModelCreate(comm, &model));
    MbsCallCleanup(MbsImportLabelModel_Private(comm, im, model, meas), MbsModelDestroy(&model));
  }
  PetscFunctionReturn(0);
}

/* The unit of each channel of -channels: -channel_units, one per channel, or -units for all */
static PetscErrorCode MbsImportChannelUnits_Private(MPI_Comm comm, MbsImport *im, const char value_unit[], PetscInt nunits, char *units[])
{
  PetscFunctionBeginUser;
  PetscCheck(!nunits || im->nchannels, comm, PETSC_ERR_ARG_WRONG, "-channel_units gives the units of the channels of -channels, which is not given");
  PetscCheck(!im->nchannels || im->kind == MBS_IMPORT_SIGNAL, comm, PETSC_ERR_ARG_INCOMP, "-channels: mbsid import reads several channels from a signal table (-kind signal), not -kind %s", MbsImportKinds[im->kind]);
  PetscCheck(!nunits || nunits == im->nchannels, comm, PETSC_ERR_ARG_SIZ, "-channel_units: %" PetscInt_FMT " unit(s) for the %" PetscInt_FMT " channels of -channels; give one per channel", nunits, im->nchannels);
  PetscCheck(nunits || !im->nchannels || value_unit[0], comm, PETSC_ERR_ARG_WRONG, "mbsid import -channels needs the units of the channels: -channel_units u1,u2,... or -units for all");
  for (PetscInt c = 0; c < im->nchannels; c++) {
    for (PetscInt d = 0; d < c; d++) PetscCheck(strcmp(im->channels[c], im->channels[d]), comm, PETSC_ERR_ARG_WRONG, "-channels names channel '%s' twice", im->channels[c]);
    PetscCall(MbsUnitFind_Private(MbsValueUnits, nunits ? "-channel_units" : "-units", nunits ? units[c] : value_unit, &im->channel_unit[c]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsImportSetFromOptions_Private(MPI_Comm comm, MbsImport *im, PetscBool *help)
{
  char      value_unit[32] = "", time_unit[32] = "s", speed_unit[32] = "rpm", phase_unit[32] = "rad", angle_unit[32] = "rad";
  PetscInt  ncolumns = 64, nphase = 64, norders = 64, nchannels = 64, nchannel_units = 64;
  char     *channel_units[64] = {NULL};
  PetscBool kind_set;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(im->output, "imported.h5", sizeof(im->output)));
  im->domain = MBS_ORDER_DOMAIN_ANGLE;
  MbsOptionsBegin(comm, NULL, "mbsid import: a CSV table of a test bench to a measurement file", "import");
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-csv", "Table to import: CSV, or columns separated by ';', tabs or blanks; '#' lines are comments, a first line with names is the header", "", im->csv, sizeof(im->csv), NULL));
  PetscCall(PetscOptionsEnum("-kind", "What the table holds (doc/measurements.md)", "", MbsImportKinds, (PetscEnum)im->kind, (PetscEnum *)&im->kind, &kind_set));
  PetscCall(PetscOptionsStringArray("-columns", "Columns to read, by header name or 1-based index (signal: time,value[,speed]; orders: speed,amplitude,...; spectrum: frequency,amplitude; tacho: time, or time,voltage; speed_profile: time,speed[,angle])", "", im->columns, &ncolumns, NULL));
  PetscCall(PetscOptionsString("-units", "Unit of the values (signal, amplitudes): rad, mrad, urad, deg, m, mm, um, rad/s, deg/s, m/s, mm/s, rad/s^2, m/s^2", "", value_unit, value_unit, sizeof(value_unit), NULL));
  PetscCall(PetscOptionsString("-time_units", "Unit of times: s, ms, us", "", time_unit, time_unit, sizeof(time_unit), NULL));
  PetscCall(PetscOptionsString("-speed_units", "Unit of speeds: rpm, Hz (revolutions per second), rad/s", "", speed_unit, speed_unit, sizeof(speed_unit), NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-orders", "Orders of the amplitude columns (default: the number each column's header name ends with)", "", 0, im->orders, &norders, NULL));
  PetscCall(PetscOptionsStringArray("-phase_columns", "Phase columns, one per amplitude column (orders, spectrum): the coefficients a = X cos psi, b = -X sin psi", "", im->phase_columns, &nphase, NULL));
  PetscCall(PetscOptionsString("-phase_units", "Unit of phases: rad, deg", "", phase_unit, phase_unit, sizeof(phase_unit), NULL));
  PetscCall(PetscOptionsString("-angle_units", "Unit of the crank angle of a speed profile: rad, deg", "", angle_unit, angle_unit, sizeof(angle_unit), NULL));
  PetscCall(PetscOptionsEnum("-order_domain", "Windows of the test bench's order analysis: angle (order tracking) or time (engine4.md section 10)", "", MbsOrderDomains, (PetscEnum)im->domain, (PetscEnum *)&im->domain, NULL));
  PetscCall(PetscOptionsReal("-tacho_threshold", "Voltage whose upward crossings are the pulses of a sampled tachometer voltage (-kind tacho, columns time,voltage; default: the middle of its range)", "", im->tacho_threshold, &im->tacho_threshold, &im->tacho_threshold_set));
  PetscCall(PetscOptionsReal("-tacho_hysteresis", "Width of the band about -tacho_threshold the voltage must leave between two pulses (default: a tenth of its range)", "", im->tacho_hysteresis, &im->tacho_hysteresis, &im->tacho_hysteresis_set));
  PetscCall(PetscOptionsBool("-csv_decimal_comma", "Numbers are written with a decimal comma (1,5); the delimiter is then ';', a tab or blanks", "", im->decimal_comma, &im->decimal_comma, NULL));
  PetscCall(PetscOptionsString("-model", "Model whose output the values are: checks -units and -output against it, and names it in the file", "", im->model, im->model, sizeof(im->model), NULL));
  PetscCall(PetscOptionsString("-output", "Name of the measured output (default: the model's)", "", im->output_name, im->output_name, sizeof(im->output_name), NULL));
  PetscCall(PetscOptionsStringArray("-channels", "-kind signal: names of the channels of the value columns after the time column (a measurement of several channels, /channels/NAME)", "", im->channels, &nchannels, NULL));
  PetscCall(PetscOptionsStringArray("-channel_units", "Units of the channels of -channels, one per channel (default: -units for every one)", "", channel_units, &nchannel_units, NULL));
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5, measurement schema)", im->output, sizeof(im->output)));
  MbsOptionsEnd();
  im->ncolumns       = ncolumns;
  im->nphase_columns = nphase;
  im->norders        = norders;
  im->nchannels      = nchannels;
  PetscCall(PetscOptionsHasHelp(NULL, help));
  if (!*help) MbsCallCleanup(MbsImportChannelUnits_Private(comm, im, value_unit, nchannel_units, channel_units), MbsStringsFree(nchannel_units, channel_units));
  else PetscCall(MbsStringsFree(nchannel_units, channel_units));
  if (*help) PetscFunctionReturn(0);

  PetscCheck(im->csv[0], comm, PETSC_ERR_ARG_WRONG, "mbsid import needs the table: -csv FILE");
  PetscCheck(kind_set, comm, PETSC_ERR_ARG_WRONG, "mbsid import needs -kind: signal, orders, spectrum, tacho or speed_profile");
  PetscCall(MbsUnitFind_Private(MbsTimeUnits, "-time_units", time_unit, &im->time_unit));
  PetscCall(MbsUnitFind_Private(MbsSpeedUnits, "-speed_units", speed_unit, &im->speed_unit));
  PetscCall(MbsUnitFind_Private(MbsAngleUnits, "-phase_units", phase_unit, &im->phase_unit));
  PetscCall(MbsUnitFind_Private(MbsAngleUnits, "-angle_units", angle_unit, &im->angle_unit));
  if ((im->kind == MBS_IMPORT_SIGNAL && !im->nchannels) || im->kind == MBS_IMPORT_ORDERS || im->kind == MBS_IMPORT_SPECTRUM) {
    PetscCheck(value_unit[0], comm, PETSC_ERR_ARG_WRONG, "mbsid import -kind %s needs -units, the unit of the values in '%s' (rad, mrad, deg, m, mm, ...)", MbsImportKinds[im->kind], im->csv);
    PetscCall(MbsUnitFind_Private(MbsValueUnits, "-units", value_unit, &im->value_unit));
  }
  PetscCheck(im->kind == MBS_IMPORT_TACHO || (!im->tacho_threshold_set && !im->tacho_hysteresis_set), comm, PETSC_ERR_ARG_INCOMP, "-tacho_threshold, -tacho_hysteresis find the pulses in a sampled voltage (-kind tacho, columns time,voltage); -kind %s has none", MbsImportKinds[im->kind]);
  for (PetscInt o = 0; o < im->norders; o++) PetscCheck(im->orders[o] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-orders: order %g must be positive", (double)im->orders[o]);
  PetscFunctionReturn(0);
}

typedef struct {
  MbsImport      im;
  MbsCsv         csv;
  MbsMeasurement meas;
} MbsImportCommand;

static PetscErrorCode MbsImportCommandDestroy_Private(MbsImportCommand *ic)
{
  PetscFunctionBeginUser;
  PetscCall(MbsCsvReset(&ic->csv));
  PetscCall(MbsMeasurementReset(&ic->meas));
  PetscCall(MbsStringsFree(PETSC_STATIC_ARRAY_LENGTH(ic->im.columns), ic->im.columns));
  PetscCall(MbsStringsFree(PETSC_STATIC_ARRAY_LENGTH(ic->im.phase_columns), ic->im.phase_columns));
  PetscCall(MbsStringsFree(PETSC_STATIC_ARRAY_LENGTH(ic->im.channels), ic->im.channels));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsImportRun_Private(MPI_Comm comm, MbsImportCommand *ic)
{
  MbsImport      *im   = &ic->im;
  MbsCsv         *csv  = &ic->csv;
  MbsMeasurement *meas = &ic->meas;
  PetscBool       help;

  PetscFunctionBeginUser;
  PetscCall(MbsImportSetFromOptions_Private(comm, im, &help));
  if (help) PetscFunctionReturn(0);
  PetscCall(MbsImportLabel_Private(comm, im, meas));
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsCsvRead(im->csv, im->decimal_comma, csv));
  PetscCall(MbsImportTable_Private(comm, im, csv, meas));
  PetscCall(PetscSNPrintf(meas->created_by, sizeof(meas->created_by), "mbsid %s import -kind %s of '%s'", MBSID_VERSION, MbsImportKinds[im->kind], im->csv));
  PetscCall(MbsMeasurementWrite(comm, im->output, meas));
  PetscCall(PetscPrintf(comm, "Imported '%s' (%" PetscInt_FMT " rows of %" PetscInt_FMT " columns%s) as %s into %s\n", im->csv, csv->nrow, csv->ncol, csv->name ? " under a header" : "", MbsImportKinds[im->kind], im->output));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandImport(MPI_Comm comm)
{
  MbsImportCommand ic;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&ic, sizeof(ic)));
  MbsCallCleanup(MbsImportRun_Private(comm, &ic), MbsImportCommandDestroy_Private(&ic));
  PetscFunctionReturn(0);
}
