/*
  YAML options files are read by PETSc inside PetscInitialize(), whose message for a syntax error is "YAML parser
  loading error", naming neither file nor line; and PETSc turns a mapping where a value belongs into options nobody
  reads (p: {cf: {value: 20}} becomes -p_cf_value 20, and cf keeps its default). So mbsid reads each YAML options file
  of its command line with libyaml before PETSc starts, and stops at a fault with the file, line and column.

  Plain C without PETSc, which is not initialised yet.
*/
#include "mbsidimpl.h"
#include <yaml.h>

static PetscBool MbsIsYAMLFile(const char path[])
{
  size_t length = strlen(path);

  return (PetscBool)((length > 5 && !strcmp(path + length - 5, ".yaml")) || (length > 4 && !strcmp(path + length - 4, ".yml")));
}

/* Model parameters are single numbers: under a key p (also inside an experiment's block) every value must be a scalar */
static int MbsYAMLCheckNode(yaml_document_t *doc, yaml_node_t *node, const char path[], char message[], size_t size)
{
  if (node->type != YAML_MAPPING_NODE) return 0;
  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
    yaml_node_t *key = yaml_document_get_node(doc, pair->key), *value = yaml_document_get_node(doc, pair->value);

    if (!key || !value || key->type != YAML_SCALAR_NODE) continue; /* PETSc names these itself */
    if (!strcmp((const char *)key->data.scalar.value, "p")) {
      if (value->type != YAML_MAPPING_NODE) {
        snprintf(message, size, "YAML options file '%s', line %zu, column %zu: p must hold the model parameters as name: value pairs", path, value->start_mark.line + 1, value->start_mark.column + 1);
        return 1;
      }
      for (yaml_node_pair_t *parameter = value->data.mapping.pairs.start; parameter < value->data.mapping.pairs.top; parameter++) {
        yaml_node_t *name = yaml_document_get_node(doc, parameter->key), *number = yaml_document_get_node(doc, parameter->value);

        if (!name || !number || number->type == YAML_SCALAR_NODE) continue;
        snprintf(message, size, "YAML options file '%s', line %zu, column %zu: parameter p: %s: must be a single number, not a %s", path, number->start_mark.line + 1, number->start_mark.column + 1,
                 name->type == YAML_SCALAR_NODE ? (const char *)name->data.scalar.value : "?", number->type == YAML_MAPPING_NODE ? "mapping" : "list");
        return 1;
      }
    } else if (MbsYAMLCheckNode(doc, value, path, message, size)) return 1;
  }
  return 0;
}

static int MbsYAMLCheckFile(const char path[], char message[], size_t size)
{
  FILE           *file = fopen(path, "rb");
  yaml_parser_t   parser;
  yaml_document_t doc;
  int             fault = 0;

  if (!file) return 0; /* PETSc reports a missing file with its name */
  if (!yaml_parser_initialize(&parser)) {
    fclose(file);
    snprintf(message, size, "YAML options file '%s': libyaml could not start", path);
    return 1;
  }
  yaml_parser_set_input_file(&parser, file);
  while (!fault) {
    yaml_node_t *root;

    if (!yaml_parser_load(&parser, &doc)) {
      snprintf(message, size, "YAML options file '%s', line %zu, column %zu: %s%s%s", path, parser.problem_mark.line + 1, parser.problem_mark.column + 1, parser.problem ? parser.problem : "syntax error", parser.context ? " " : "",
               parser.context ? parser.context : "");
      fault = 1;
      break;
    }
    root = yaml_document_get_root_node(&doc);
    if (!root) {
      yaml_document_delete(&doc);
      break;
    }
    fault = MbsYAMLCheckNode(&doc, root, path, message, size);
    yaml_document_delete(&doc);
  }
  yaml_parser_delete(&parser);
  fclose(file);
  return fault;
}

/*
  MbsYAMLCheckOptionsFiles - Checks the YAML files given by -options_file or -options_file_yaml in argv; returns
  non-zero with the fault in message. Call before PetscInitialize().
*/
int MbsYAMLCheckOptionsFiles(int argc, char **argv, char message[], size_t size)
{
  for (int i = 1; i + 1 < argc; i++) {
    PetscBool yaml_option = (PetscBool)!strcmp(argv[i], "-options_file_yaml");

    if (!yaml_option && strcmp(argv[i], "-options_file")) continue;
    if ((yaml_option || MbsIsYAMLFile(argv[i + 1])) && MbsYAMLCheckFile(argv[i + 1], message, size)) return 1;
  }
  return 0;
}
