/*
  Checksums (64-bit FNV-1a) that tell a changed file or log from the one a result or checkpoint was made with. Not
  cryptographic: they guard against edits and mix-ups, not against forgery.
*/
#include "mbsidimpl.h"

/*@C
  MbsChecksumBytes - The FNV-1a checksum of n more bytes, continuing from hash (MBS_CHECKSUM_START for the first).
  Not collective.
@*/
unsigned long long MbsChecksumBytes(unsigned long long hash, const void *data, size_t n)
{
  const unsigned char *bytes = (const unsigned char *)data;

  for (size_t i = 0; i < n; i++) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  return hash;
}

/*@C
  MbsChecksumFile - The checksum of the bytes of the file at path, which option named (for the error message). Not
  collective.
@*/
PetscErrorCode MbsChecksumFile(const char option[], const char path[], unsigned long long *hash)
{
  unsigned char buffer[65536];
  size_t        n;
  FILE         *file = fopen(path, "rb");

  PetscFunctionBeginUser;
  PetscCheck(file, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open '%s' (%s) to compute its checksum", path, option);
  *hash = MBS_CHECKSUM_START;
  while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0) *hash = MbsChecksumBytes(*hash, buffer, n);
  PetscCheck(!ferror(file) && fclose(file) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read '%s' (%s) to compute its checksum", path, option);
  PetscFunctionReturn(0);
}
