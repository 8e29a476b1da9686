/*
  Tables of numbers in text files, as test benches export them (CSV, semicolon- or tab-separated, or columns
  separated by blanks). A file is read whole and checked before anything uses it:

    - a UTF-8 byte order mark at the start (spreadsheets write one) is dropped; lines end in LF, CRLF or CR alone;
    - everything from a '#' to the end of its line is a comment, and blank lines are skipped, anywhere in the file;
    - the first line that is not skipped is the header when one of its fields is not a number: it names the
      columns (surrounding double quotes and blanks are dropped, and names must be unique); otherwise the columns
      have no names;
    - the delimiter is the first of ';', ',' and TAB found on the first row of numbers (and applies to the header);
      without any of them, fields are separated by runs of blanks (with a decimal comma, ',' is never the delimiter);
    - every other line has exactly as many fields as the first, and every field is a finite decimal number, read
      whole (no hexadecimal 0x10; a number below the smallest normal double, 1e-310, is read as the nearest double);
    - a file that holds a NUL byte is not text, and is refused as soon as the byte is read (/dev/zero).

  Each error names the file, the line, the column (with its name) and the text at fault. A column is chosen by
  its header name (ignoring case) or by its 1-based index.
*/
#include "mbsidimpl.h"
#include <ctype.h>
#include <errno.h>

/* More than any test-bench export holds */
#define MBS_CSV_MAX_VALUES 1000000000
#define MBS_CSV_MAX_BYTES  ((size_t)1 << 34)

/* The fields of one line, split in place: field[i] points into text, each ended by a NUL */
static PetscErrorCode MbsCsvSplit_Private(char text[], char delimiter, PetscInt max_fields, PetscInt *nfield, char *field[])
{
  char *p = text;

  PetscFunctionBeginUser;
  *nfield = 0;
  for (;;) {
    char *end;

    if (delimiter == ' ') {
      while (isspace((unsigned char)*p)) p++;
      if (!*p) break;
      end = p + strcspn(p, " \t");
    } else end = p + strcspn(p, (char[]){delimiter, 0});
    if (*nfield < max_fields) field[*nfield] = p;
    (*nfield)++;
    if (!*end) break;
    *end = 0;
    p    = end + 1;
  }
  PetscFunctionReturn(0);
}

static const char *MbsCsvDelimiterName_Private(char delimiter)
{
  return delimiter == '\t' ? "\\t" : delimiter == ' ' ? "blanks" : delimiter == ';' ? ";" : ",";
}

/* A field without surrounding blanks and double quotes, in place */
static char *MbsCsvTrim_Private(char field[])
{
  char  *p = field;
  size_t n;

  while (isspace((unsigned char)*p)) p++;
  n = strlen(p);
  while (n > 0 && isspace((unsigned char)p[n - 1])) p[--n] = 0;
  if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
    p[n - 1] = 0;
    p++;
  }
  return p;
}

/* A whole field as a number; *ok false when it is not one (empty, text, text after the number, or hexadecimal, which
   strtod() reads but no test bench writes). Out of range, strtod() gives +-HUGE_VAL (refused as not finite) or the
   nearest double below the normal range, which is the number. */
static void MbsCsvNumber_Private(char field[], PetscBool decimal_comma, PetscReal *value, PetscBool *ok)
{
  char *p = MbsCsvTrim_Private(field), *end;

  if (decimal_comma)
    for (char *c = p; *c; c++)
      if (*c == ',') *c = '.';
  *value = strtod(p, &end);
  *ok    = (PetscBool)(*p && end != p && !*end && !strpbrk(p, "xX"));
}

/*@C
  MbsCsvColumnName - The name of a column for messages: "column 3 ('speed')", or "column 3" without a header. Not
  collective.
@*/
PetscErrorCode MbsCsvColumnName(const MbsCsv *csv, PetscInt column, char text[], size_t size)
{
  PetscFunctionBeginUser;
  if (csv->name) PetscCall(PetscSNPrintf(text, size, "column %" PetscInt_FMT " ('%s')", column + 1, csv->name[column]));
  else PetscCall(PetscSNPrintf(text, size, "column %" PetscInt_FMT, column + 1));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCsvReadHeader_Private(MbsCsv *csv, PetscInt line, PetscInt nfield, char *field[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nfield, &csv->name));
  for (PetscInt c = 0; c < nfield; c++) {
    const char *name = MbsCsvTrim_Private(field[c]);

    PetscCheck(name[0], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", column %" PetscInt_FMT ": the header has an empty column name", csv->path, line, c + 1);
    for (PetscInt d = 0; d < c; d++) {
      PetscBool same;

      PetscCall(PetscStrcasecmp(csv->name[d], name, &same));
      PetscCheck(!same, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ": columns %" PetscInt_FMT " and %" PetscInt_FMT " are both named '%s'", csv->path, line, d + 1, c + 1, name);
    }
    PetscCall(PetscStrallocpy(name, &csv->name[c]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCsvAddRow_Private(MbsCsv *csv, PetscInt line, PetscInt nfield, char *field[], PetscBool decimal_comma, PetscInt *nalloc)
{
  PetscFunctionBeginUser;
  PetscCheck(nfield == csv->ncol, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ": %" PetscInt_FMT " field(s) where the %s has %" PetscInt_FMT " (delimiter '%s')", csv->path, line, nfield, csv->name ? "header" : "first line",
             csv->ncol, MbsCsvDelimiterName_Private(csv->delimiter));
  if (csv->nrow == *nalloc) {
    PetscReal *value;
    PetscInt  *row_line;

    PetscCheck((double)(csv->nrow + 1) * csv->ncol <= MBS_CSV_MAX_VALUES, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has more than %d values", csv->path, MBS_CSV_MAX_VALUES);
    *nalloc = PetscMin(PetscMax(1024, 2 * *nalloc), MBS_CSV_MAX_VALUES / csv->ncol);
    PetscCall(PetscMalloc2(*nalloc * csv->ncol, &value, *nalloc, &row_line));
    PetscCall(PetscArraycpy(value, csv->value, csv->nrow * csv->ncol));
    PetscCall(PetscArraycpy(row_line, csv->line, csv->nrow));
    PetscCall(PetscFree2(csv->value, csv->line));
    csv->value = value;
    csv->line  = row_line;
  }
  for (PetscInt c = 0; c < csv->ncol; c++) {
    PetscReal *value = &csv->value[csv->nrow * csv->ncol + c];
    char       where[128], text[64];
    PetscBool  ok;

    char *trimmed = MbsCsvTrim_Private(field[c]);

    PetscCall(PetscStrncpy(text, trimmed, sizeof(text)));
    MbsCsvNumber_Private(trimmed, decimal_comma, value, &ok);
    PetscCall(MbsCsvColumnName(csv, c, where, sizeof(where)));
    PetscCheck(text[0], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", %s: the field is empty", csv->path, line, where);
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", %s: '%s' is not a number%s", csv->path, line, where, text, !decimal_comma && strchr(text, ',') ? " (a decimal comma? give -csv_decimal_comma)" : "");
    PetscCheck(!PetscIsInfOrNanReal(*value), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ", %s: '%s' is not a finite number", csv->path, line, where, text);
  }
  csv->line[csv->nrow++] = line;
  PetscFunctionReturn(0);
}

static char MbsCsvDelimiter_Private(const char text[], PetscBool decimal_comma)
{
  return strchr(text, ';') ? ';' : !decimal_comma && strchr(text, ',') ? ',' : strchr(text, '\t') ? '\t' : ' ';
}

/* A line is a header when one of its fields, split on its own delimiter, is not a number */
static PetscErrorCode MbsCsvIsHeader_Private(const char text[], PetscBool decimal_comma, PetscBool *header)
{
  char    *copy, **field;
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(PetscStrallocpy(text, &copy));
  PetscCall(PetscMalloc1(strlen(text) + 1, &field));
  PetscCall(MbsCsvSplit_Private(copy, MbsCsvDelimiter_Private(copy, decimal_comma), (PetscInt)strlen(text) + 1, &n, field));
  *header = PETSC_FALSE;
  for (PetscInt c = 0; c < n; c++) {
    PetscReal value;
    PetscBool ok;

    MbsCsvNumber_Private(field[c], decimal_comma, &value, &ok);
    *header = (PetscBool)(*header || !ok);
  }
  PetscCall(PetscFree(field));
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(0);
}

/* The header's names, split on the delimiter of the data (numbers hold none of ';', tab, or ',' but as a decimal
   comma); over a single column of numbers the whole header line is its name ("pulse time [s]") */
static PetscErrorCode MbsCsvSetHeader_Private(MbsCsv *csv, PetscInt header_line, char header[], PetscInt data_line)
{
  char         **field;
  PetscInt       n;
  PetscErrorCode named;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(strlen(header) + 1, &field));
  if (csv->ncol == 1 && csv->delimiter == ' ') {
    field[0] = header;
    n        = 1;
  } else PetscCall(MbsCsvSplit_Private(header, csv->delimiter, (PetscInt)strlen(header) + 1, &n, field));
  named = n == csv->ncol ? MbsCsvReadHeader_Private(csv, header_line, n, field) : PETSC_ERR_FILE_UNEXPECTED;
  PetscCall(PetscFree(field));
  PetscCheck(n == csv->ncol, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ": the header names %" PetscInt_FMT " column(s), but line %" PetscInt_FMT " has %" PetscInt_FMT " field(s) (delimiter '%s')", csv->path, header_line, n, data_line,
             csv->ncol, MbsCsvDelimiterName_Private(csv->delimiter));
  PetscCall(named);
  PetscFunctionReturn(0);
}

/* The whole file, NUL-terminated; the file is closed on every path */
static PetscErrorCode MbsCsvLoad_Private(const char path[], char **buffer)
{
  FILE          *file = fopen(path, "rb");
  size_t         size = 0, capacity = 0, got;
  int            failed;
  PetscErrorCode grown;

  PetscFunctionBeginUser;
  *buffer = NULL;
  PetscCheck(file, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open CSV file '%s': %s", path, strerror(errno));
  do {
    if (size + 1 >= capacity) {
      capacity = PetscMax(65536, 2 * capacity);
      if (capacity > MBS_CSV_MAX_BYTES) {
        fclose(file);
        PetscCall(PetscFree(*buffer));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' is larger than %g bytes", path, (double)MBS_CSV_MAX_BYTES);
      }
      grown = PetscRealloc(capacity, buffer);
      if (grown) {
        fclose(file);
        PetscCall(PetscFree(*buffer));
        PetscCall(grown);
      }
    }
    got = fread(*buffer + size, 1, capacity - size - 1, file);
    size += got;
    if (memchr(*buffer + size - got, 0, got)) break; /* not text: no need to read the rest (of /dev/zero) */
  } while (got > 0);
  failed = ferror(file);
  fclose(file);
  if (failed) PetscCall(PetscFree(*buffer));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read CSV file '%s'", path);
  (*buffer)[size] = 0;
  if (strlen(*buffer) < size) { /* a NUL byte: name its line */
    PetscInt line = 1;

    for (const char *c = *buffer; *c; c++) line += *c == '\n';
    PetscCall(PetscFree(*buffer));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ": holds a NUL byte; this is not a text file", path, line);
  }
  PetscFunctionReturn(0);
}

/* The table of the text, line by line; *field is the caller's to free, whatever happens */
static PetscErrorCode MbsCsvParse_Private(MbsCsv *csv, char text[], PetscBool decimal_comma, char ***field)
{
  char    *header = NULL, *next;
  PetscInt line = 0, nalloc = 0;

  PetscFunctionBeginUser;
  if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3; /* the UTF-8 byte order mark */
  for (char *row = text; row; row = next) {
    const char *first;
    PetscInt    nfield;

    next = row + strcspn(row, "\r\n"); /* LF, CRLF or CR alone */
    if (!*next) next = NULL;
    else {
      PetscBool crlf = (PetscBool)(next[0] == '\r' && next[1] == '\n');

      *next = 0;
      next += crlf ? 2 : 1;
    }
    row[strcspn(row, "#")] = 0;                            /* a comment after the numbers */
    first                  = row + strspn(row, " \t\v\f"); /* the blanks isspace() knows */
    line++;
    if (!*first || *first == '#') continue;
    if (!csv->ncol && !header) {
      PetscBool is_header = PETSC_FALSE;

      PetscCall(MbsCsvIsHeader_Private(first, decimal_comma, &is_header));
      if (is_header) {
        header           = row;
        csv->header_line = line;
        continue;
      }
    }
    if (!csv->ncol) { /* the first row of numbers fixes the delimiter and the number of columns */
      size_t length = strlen(row);

      csv->delimiter = MbsCsvDelimiter_Private(first, decimal_comma);
      PetscCall(PetscMalloc1(length + 1, field)); /* more than the fields a line of this length can hold */
      PetscCall(MbsCsvSplit_Private(row, csv->delimiter, (PetscInt)length + 1, &nfield, *field));
      PetscCheck(nfield <= 1000, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s', line %" PetscInt_FMT ": %" PetscInt_FMT " columns; is this a table of numbers?", csv->path, line, nfield);
      csv->ncol = nfield;
      if (header) PetscCall(MbsCsvSetHeader_Private(csv, csv->header_line, header, line));
    } else PetscCall(MbsCsvSplit_Private(row, csv->delimiter, csv->ncol, &nfield, *field));
    PetscCall(MbsCsvAddRow_Private(csv, line, nfield, *field, decimal_comma, &nalloc));
  }
  PetscCheck(csv->nrow > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "CSV file '%s' has no rows of numbers%s", csv->path, header ? " after its header" : " (it is empty, or holds only comments)");
  PetscFunctionReturn(0);
}

/*@C
  MbsCsvRead - Reads and checks a table of numbers (see the head comment); decimal_comma reads "1,5" as 1.5. Free it
  with MbsCsvReset(). A file it refuses leaves nothing allocated and nothing open. Not collective.
@*/
PetscErrorCode MbsCsvRead(const char path[], PetscBool decimal_comma, MbsCsv *csv)
{
  char          *text, **field = NULL;
  PetscErrorCode parsed;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(csv, sizeof(*csv)));
  PetscCall(PetscStrncpy(csv->path, path, sizeof(csv->path)));
  PetscCall(MbsCsvLoad_Private(path, &text));
  parsed = MbsCsvParse_Private(csv, text, decimal_comma, &field);
  PetscCall(PetscFree(field));
  PetscCall(PetscFree(text));
  if (parsed) PetscCall(MbsCsvReset(csv));
  PetscCall(parsed);
  PetscFunctionReturn(0);
}

/*@C
  MbsCsvFindColumn - The 0-based index of the column that spec names: a header name (ignoring case) or a 1-based
  index. Not collective.
@*/
PetscErrorCode MbsCsvFindColumn(const MbsCsv *csv, const char spec[], PetscInt *column)
{
  char known[1024] = "";

  PetscFunctionBeginUser;
  *column = -1;
  if (spec[0] && strspn(spec, "0123456789") == strlen(spec)) {
    long index = strtol(spec, NULL, 10);

    PetscCheck(index >= 1 && index <= csv->ncol, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-columns: column %s of CSV file '%s' does not exist; the file has %" PetscInt_FMT " column(s)", spec, csv->path, csv->ncol);
    *column = (PetscInt)index - 1;
    PetscFunctionReturn(0);
  }
  for (PetscInt c = 0; csv->name && c < csv->ncol; c++) {
    PetscBool same;

    PetscCall(PetscStrcasecmp(csv->name[c], spec, &same));
    if (same) *column = c;
    PetscCall(MbsStrlcat(known, c ? ", " : "", sizeof(known)));
    PetscCall(MbsStrlcat(known, csv->name[c], sizeof(known)));
  }
  PetscCheck(*column >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-columns: CSV file '%s' has no column '%s'; %s%s", csv->path, spec, csv->name ? "its header names (a name with a comma is given by its 1-based index) " : "it has no header, so give 1-based indices", known);
  PetscFunctionReturn(0);
}

/*@C
  MbsCsvReset - Frees a table. Not collective.
@*/
PetscErrorCode MbsCsvReset(MbsCsv *csv)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; csv->name && c < csv->ncol; c++) PetscCall(PetscFree(csv->name[c]));
  PetscCall(PetscFree(csv->name));
  PetscCall(PetscFree2(csv->value, csv->line));
  PetscCall(PetscMemzero(csv, sizeof(*csv)));
  PetscFunctionReturn(0);
}
