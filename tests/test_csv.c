static const char help[] = "The CSV table reader: layouts of test-bench exports, and refusals that leave nothing behind.\n";

/*
  1. Tables of known values in every layout the reader accepts (',', ';', tabs, blanks, headers, comments between
     rows and after numbers, quoted fields, CRLF and CR line ends, a decimal comma, a one-column file under a header
     with blanks, a UTF-8 byte order mark, a subnormal number) are read back exactly, with their column names and
     the file's line of each row.
  2. Every malformed table of tests/bad_inputs/csv (-bad_dir), /dev/zero and a missing file are refused with a message naming
     the file, and the refusal leaves no memory allocated (PETSc's count of allocated bytes is unchanged) and no file
     open (the next file opened gets the same descriptor as before); so does every input the fuzzer kept (-fuzz_dir,
     tests/bad_inputs/fuzz_csv), read or refused.
*/
#include <glob.h>
#include "mbstest.h"
#include "mbsidimpl.h"

static PetscErrorCode WriteText(const char path[], const char text[])
{
  FILE *file;

  PetscFunctionBeginUser;
  file = fopen(path, "wb");
  PetscCheck(file, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", path);
  fputs(text, file);
  fclose(file);
  PetscFunctionReturn(0);
}

typedef struct {
  const char *name, *text;
  PetscBool   decimal_comma;
  char        delimiter;
  PetscInt    ncol, nrow;
  const char *column_names; /* comma-separated, or NULL without header */
  PetscReal   values[6];    /* row-major */
  PetscInt    lines[3];
} Layout;

static PetscErrorCode TestLayouts(MbsTest *test)
{
  static const Layout layouts[] = {
    {"semicolon with header",                 "# export\ntime;twist\n0.5;1e-3\n\n# pause\n1.5;-2\n", PETSC_FALSE, ';',  2, 2, "time,twist",     {0.5, 1e-3, 1.5, -2},    {3, 6}   },
    {"comma, CRLF",                           "\"t [s]\",\"y [mm]\"\r\n1,2\r\n3,4\r\n",              PETSC_FALSE, ',',  2, 2, "t [s],y [mm]",   {1, 2, 3, 4},            {2, 3}   },
    {"tabs, no header",                       "1\t2\t3\n4\t5\t6\n",                                  PETSC_FALSE, '\t', 3, 2, NULL,             {1, 2, 3, 4, 5, 6},      {1, 2}   },
    {"blanks",                                "  speed   order_2\n 3000   0.25\n3100 0.5\n",         PETSC_FALSE, ' ',  2, 2, "speed,order_2",  {3000, 0.25, 3100, 0.5}, {2, 3}   },
    {"decimal comma",                         "zeit;wert\n0,5;1,25\n1,5;-2,5\n",                     PETSC_TRUE,  ';',  2, 2, "zeit,wert",      {0.5, 1.25, 1.5, -2.5},  {2, 3}   },
    {"quoted numbers",                        "\"t\",\"y\"\n\"0.5\",\"1.5\"\n",                      PETSC_FALSE, ',',  2, 1, "t,y",            {0.5, 1.5},              {2}      },
    {"comments after the numbers",            "0.0 1 # F0\n0.5 2 # F1\n",                            PETSC_FALSE, ' ',  2, 2, NULL,             {0, 1, 0.5, 2},          {1, 2}   },
    {"one column under a header with blanks", "# 60-2 wheel\npulse time [s]\n0.001\n0.002\n0.003\n", PETSC_FALSE, ' ',  1, 3, "pulse time [s]", {0.001, 0.002, 0.003},   {3, 4, 5}},
 /* as spreadsheets write them: a UTF-8 byte order mark (with and without a header: the t = 0 row stays a row),
       old Mac line ends (CR alone), a number below the normal range (read as the subnormal double it is) */
    {"UTF-8 BOM, header",                     "\xEF\xBB\xBFZeit [s];Wert\r\n0;1\r\n0,5;2\r\n",       PETSC_TRUE,  ';',  2, 2, "Zeit [s],Wert",  {0, 1, 0.5, 2},          {2, 3}   },
    {"UTF-8 BOM, no header",
     "\xEF\xBB\xBF"
     "0,1\n0.5,2\n",                                                                                 PETSC_FALSE,
     ',',                                                                                                               2,
     2,                                                                                                                       NULL,
     {0, 1, 0.5, 2},
     {1, 2}                                                                                                                                                                       },
    {"CR line ends",                          "t;y\r0;1\r\r# pause\r0.5;2\r",                        PETSC_FALSE, ';',  2, 2, "t,y",            {0, 1, 0.5, 2},          {2, 5}   },
    {"subnormal number",                      "t,y\n0,1e-310\n",                                     PETSC_FALSE, ',',  2, 1, "t,y",            {0, 1e-310},             {2}      },
  };

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
    const Layout *l = &layouts[k];
    MbsCsv        csv;
    PetscBool     ok;
    char          line[256], names[256] = "";

    PetscCall(WriteText("layout.csv", l->text));
    PetscCall(MbsCsvRead("layout.csv", l->decimal_comma, &csv));
    ok = (PetscBool)(csv.ncol == l->ncol && csv.nrow == l->nrow && csv.delimiter == l->delimiter && !csv.name == !l->column_names);
    for (PetscInt i = 0; ok && i < l->ncol * l->nrow; i++) ok = (PetscBool)(csv.value[i] == l->values[i]);
    for (PetscInt r = 0; ok && r < l->nrow; r++) ok = (PetscBool)(csv.line[r] == l->lines[r]);
    for (PetscInt c = 0; csv.name && c < csv.ncol; c++) {
      PetscCall(PetscStrlcat(names, c ? "," : "", sizeof(names)));
      PetscCall(PetscStrlcat(names, csv.name[c], sizeof(names)));
    }
    if (l->column_names) ok = (PetscBool)(ok && !strcmp(names, l->column_names));
    PetscCall(PetscSNPrintf(line, sizeof(line), "%s: %" PetscInt_FMT " x %" PetscInt_FMT " values, lines and names [%s] read back exactly", l->name, csv.nrow, csv.ncol, names));
    PetscCall(MbsTestTrue(test, line, ok));
    PetscCall(MbsCsvReset(&csv));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRefusals(MbsTest *test, const char dir[])
{
  static const char *const bad[] = {"signal_text_in_number.csv", "signal_nan.csv",   "signal_inf.csv", "empty.csv", "header_only.csv", "signal_short_row.csv", "signal_decimal_comma.csv", "signal_duplicate_header.csv", "binary.csv",
                                    "no_such_file.csv",          "header_count.csv", "signal_hex.csv", "/dev/zero"};

  PetscFunctionBeginUser;
  PetscCall(WriteText("header_count.csv", "a;b;c\n1;2\n"));
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    char                 path[PETSC_MAX_PATH_LEN], line[1400];
    MbsTestCapturedError captured = {""};
    PetscLogDouble       before, after;
    MbsCsv               csv;
    PetscErrorCode       ierr;
    int                  fd_before = MbsTestNextDescriptor();

    if (bad[k][0] == '/') PetscCall(PetscStrncpy(path, bad[k], sizeof(path))); /* endless zeros: refused at their first block */
    else PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", strcmp(bad[k], "header_count.csv") ? dir : ".", bad[k]));
    PetscCall(PetscMallocGetCurrentUsage(&before));
    PetscCall(PetscPushErrorHandler(MbsTestCaptureError, &captured));
    ierr = MbsCsvRead(path, PETSC_FALSE, &csv);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscMallocGetCurrentUsage(&after));
    PetscCall(PetscSNPrintf(line, sizeof(line), "%s is refused (\"%s\"), %g bytes left allocated, descriptor %d -> %d", bad[k], captured.message, after - before, fd_before, MbsTestNextDescriptor()));
    PetscCall(MbsTestTrue(test, line, (PetscBool)(ierr != 0 && strstr(captured.message, path) && before > 0 && after == before && MbsTestNextDescriptor() == fd_before)));
  }
  PetscFunctionReturn(0);
}

/* Inputs the fuzzer kept (-fuzz_dir): read with a decimal point and with a decimal comma, accepted or refused, each
   leaves nothing allocated or open */
static PetscErrorCode TestFuzzFindings(MbsTest *test, const char dir[])
{
  char   pattern[PETSC_MAX_PATH_LEN];
  glob_t found;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(pattern, sizeof(pattern), "%s/*", dir));
  PetscCheck(glob(pattern, 0, NULL, &found) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-fuzz_dir %s: no files", dir);
  for (size_t i = 0; i < found.gl_pathc; i++)
    for (int decimal_comma = 0; decimal_comma < 2; decimal_comma++) {
      char           line[PETSC_MAX_PATH_LEN + 128];
      PetscLogDouble before, after;
      MbsCsv         csv;
      PetscErrorCode ierr;
      int            fd = MbsTestNextDescriptor();

      PetscCall(PetscMallocGetCurrentUsage(&before));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MbsCsvRead(found.gl_pathv[i], (PetscBool)decimal_comma, &csv);
      PetscCall(PetscPopErrorHandler());
      if (!ierr) PetscCall(MbsCsvReset(&csv));
      PetscCall(PetscMallocGetCurrentUsage(&after));
      PetscCall(PetscSNPrintf(line, sizeof(line), "%s (decimal %s) %s, %g bytes left", found.gl_pathv[i], decimal_comma ? "comma" : "point", ierr ? "refused" : "read", after - before));
      PetscCall(MbsTestTrue(test, line, (PetscBool)(before > 0 && after == before && MbsTestNextDescriptor() == fd)));
    }
  globfree(&found);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsTest   test                    = {0, 0};
  char      dir[PETSC_MAX_PATH_LEN] = "";
  PetscBool fuzz;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bad_dir", dir, sizeof(dir), NULL));
  PetscCheck(dir[0], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Give -bad_dir, the folder of the malformed tables (tests/bad_inputs/csv)");
  PetscCall(TestLayouts(&test));
  PetscCall(TestRefusals(&test, dir));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_dir", dir, sizeof(dir), &fuzz));
  if (fuzz) PetscCall(TestFuzzFindings(&test, dir));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
