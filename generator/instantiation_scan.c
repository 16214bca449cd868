/* instantiation_scan.c: explicit instantiations read from a .cu's tokens (instantiation_scan.h). */
#include "instantiation_scan.h"

#include <stdlib.h>
#include <string.h>

/* ---- Tokens --------------------------------------------------------------------------------- */

typedef enum token_kind {
  TOKEN_WORD,
  TOKEN_NUMBER,
  TOKEN_LITERAL,
  TOKEN_PUNCT,
  TOKEN_CONDITIONAL /* a directive of a conditional block: #if, #ifdef, #else, #endif, ...; its
                       spelling is the directive's name ("ifdef") */
} token_kind;

typedef struct token {
  token_kind kind;
  size_t start, length; /* in the text */
  int if_zero;          /* an `#if 0` */
} token;

typedef struct lexer {
  const char *text;
  size_t size, at;
  int line_start; /* only white space since the last line's end: a '#' starts a directive */
  token *tokens;
  size_t count, capacity;
  token *macros; /* the names #define and #undef directives give, where they give them */
  size_t num_macros, macros_capacity;
} lexer;

/* Punctuators of more than one character, longest first: clang spells each as one token. */
static const char *const compound_punctuators[] = {
    "<=>", "...", "<<=", ">>=", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
    "!=",  "&&",  "||",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*"};

static int is_word_char(unsigned char c) {
  return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c >= 0x80;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The length of a line splice (backslash, then a newline or CR LF) at `at`, else 0. */
static size_t splice_at(const lexer *lx, size_t at) {
  if (at < lx->size && lx->text[at] == '\\') {
    if (at + 1 < lx->size && lx->text[at + 1] == '\n')
      return 2;
    if (at + 2 < lx->size && lx->text[at + 1] == '\r' && lx->text[at + 2] == '\n')
      return 3;
  }
  return 0;
}

/* Skips to the end of the logical line (splices continue it); the newline is left. */
static void skip_line(lexer *lx) {
  while (lx->at < lx->size && lx->text[lx->at] != '\n') {
    size_t splice = splice_at(lx, lx->at);
    lx->at += splice ? splice : 1;
  }
}

/* Skips a block comment whose "/" "*" is at lx->at. */
static void skip_block_comment(lexer *lx) {
  const char *end = NULL;
  size_t i;
  for (i = lx->at + 2; i + 1 < lx->size; i++)
    if (lx->text[i] == '*' && lx->text[i + 1] == '/') {
      end = lx->text + i + 2;
      break;
    }
  lx->at = end ? (size_t)(end - lx->text) : lx->size;
}

/* Skips white space, comments and line splices; 1 when a directive's '#' comes next. */
static int skip_space(lexer *lx) {
  while (lx->at < lx->size) {
    char c = lx->text[lx->at];
    size_t splice = splice_at(lx, lx->at);
    if (c == '\n') {
      lx->line_start = 1;
      lx->at++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->at++;
    } else if (splice) {
      lx->at += splice;
    } else if (c == '/' && lx->at + 1 < lx->size && lx->text[lx->at + 1] == '/') {
      skip_line(lx);
    } else if (c == '/' && lx->at + 1 < lx->size && lx->text[lx->at + 1] == '*') {
      skip_block_comment(lx);
    } else {
      return c == '#' && lx->line_start;
    }
  }
  return 0;
}

static void skip_quoted(lexer *lx);
static void add_token(lexer *lx, token_kind kind, size_t start);

/* The directive names that open, continue or close a conditional block. */
static const char *const conditionals[] = {"if",   "ifdef",   "ifndef",   "elif", "elifdef",
                                           "elifndef", "else", "endif"};

/*
 * Reads a directive from its '#': a conditional one becomes a token (named by the directive);
 * the rest of its logical line is skipped, with its literals and the block comments that run
 * past it.
 */
static void skip_directive(lexer *lx) {
  size_t name, i;
  lx->at++;
  while (lx->at < lx->size && (lx->text[lx->at] == ' ' || lx->text[lx->at] == '\t'))
    lx->at++;
  name = lx->at;
  while (lx->at < lx->size && is_word_char((unsigned char)lx->text[lx->at]))
    lx->at++;
  for (i = 0; i < sizeof conditionals / sizeof conditionals[0]; i++)
    if (strlen(conditionals[i]) == lx->at - name &&
        memcmp(lx->text + name, conditionals[i], lx->at - name) == 0) {
      size_t rest = lx->at;
      add_token(lx, TOKEN_CONDITIONAL, name);
      while (rest < lx->size && (lx->text[rest] == ' ' || lx->text[rest] == '\t'))
        rest++;
      lx->tokens[lx->count - 1].if_zero =
          i == 0 && rest < lx->size && lx->text[rest] == '0' &&
          (rest + 1 >= lx->size || !is_word_char((unsigned char)lx->text[rest + 1]));
      break;
    }
  if ((lx->at - name == 6 && memcmp(lx->text + name, "define", 6) == 0) ||
      (lx->at - name == 5 && memcmp(lx->text + name, "undef", 5) == 0)) {
    while (lx->at < lx->size && (lx->text[lx->at] == ' ' || lx->text[lx->at] == '\t'))
      lx->at++;
    if (lx->num_macros == lx->macros_capacity) {
      lx->macros_capacity = lx->macros_capacity ? lx->macros_capacity * 2 : 16;
      lx->macros = cubind_xrealloc(lx->macros, lx->macros_capacity * sizeof *lx->macros);
    }
    lx->macros[lx->num_macros].start = lx->at;
    while (lx->at < lx->size && is_word_char((unsigned char)lx->text[lx->at]))
      lx->at++;
    lx->macros[lx->num_macros].length = lx->at - lx->macros[lx->num_macros].start;
    lx->num_macros += lx->macros[lx->num_macros].length > 0;
  }
  while (lx->at < lx->size && lx->text[lx->at] != '\n') {
    size_t splice = splice_at(lx, lx->at);
    if (splice)
      lx->at += splice;
    else if (lx->text[lx->at] == '"' || lx->text[lx->at] == '\'')
      skip_quoted(lx); /* a string opens no comment, whatever it holds */
    else if (lx->text[lx->at] == '/' && lx->at + 1 < lx->size && lx->text[lx->at + 1] == '*')
      skip_block_comment(lx);
    else if (lx->text[lx->at] == '/' && lx->at + 1 < lx->size && lx->text[lx->at + 1] == '/')
      skip_line(lx);
    else
      lx->at++;
  }
}

/* Skips a quoted literal from its opening quote at lx->at (escapes read; ends with its line). */
static void skip_quoted(lexer *lx) {
  char quote = lx->text[lx->at++];
  while (lx->at < lx->size && lx->text[lx->at] != quote && lx->text[lx->at] != '\n') {
    size_t splice = splice_at(lx, lx->at);
    lx->at += splice ? splice : lx->text[lx->at] == '\\' && lx->at + 1 < lx->size ? 2 : 1;
  }
  if (lx->at < lx->size && lx->text[lx->at] == quote)
    lx->at++;
}

/* Skips a raw string literal whose '"' is at lx->at: R"delim( ... )delim". */
static void skip_raw_string(lexer *lx) {
  size_t open = lx->at + 1, paren = open, i;
  while (paren < lx->size && paren - open <= 16 && lx->text[paren] != '(' &&
         lx->text[paren] != '\n')
    paren++;
  if (paren >= lx->size || lx->text[paren] != '(') { /* not a raw string: read it as quoted */
    skip_quoted(lx);
    return;
  }
  for (i = paren + 1; i < lx->size; i++)
    if (lx->text[i] == ')' && i + 1 + (paren - open) < lx->size &&
        memcmp(lx->text + i + 1, lx->text + open, paren - open) == 0 &&
        lx->text[i + 1 + (paren - open)] == '"') {
      lx->at = i + 2 + (paren - open);
      return;
    }
  lx->at = lx->size;
}

static void add_token(lexer *lx, token_kind kind, size_t start) {
  if (lx->count == lx->capacity) {
    lx->capacity = lx->capacity ? lx->capacity * 2 : 256;
    lx->tokens = cubind_xrealloc(lx->tokens, lx->capacity * sizeof *lx->tokens);
  }
  lx->tokens[lx->count].kind = kind;
  lx->tokens[lx->count].start = start;
  lx->tokens[lx->count].length = lx->at - start;
  lx->tokens[lx->count].if_zero = 0;
  lx->count++;
}

/* 1 when the word text[start, at) is an encoding prefix of a literal (u8, L, uR, R, ...). */
static int is_literal_prefix(const char *word, size_t length, int *raw) {
  static const char *const prefixes[] = {"u8", "u", "U", "L", "u8R", "uR", "UR", "LR", "R"};
  size_t i;
  for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strlen(prefixes[i]) == length && memcmp(word, prefixes[i], length) == 0) {
      *raw = word[length - 1] == 'R';
      return 1;
    }
  return 0;
}

/* Reads the next token into lx->tokens; 0 at the end of the text. */
static int lex_one(lexer *lx) {
  size_t start;
  char c;
  size_t i;
  while (skip_space(lx))
    skip_directive(lx);
  if (lx->at >= lx->size)
    return 0;
  lx->line_start = 0;
  start = lx->at;
  c = lx->text[lx->at];
  if (is_digit(c) || (c == '.' && lx->at + 1 < lx->size && is_digit(lx->text[lx->at + 1]))) {
    /* a preprocessing number: 1'000, 0x1p-3, 2.5e+3f */
    while (lx->at < lx->size) {
      char n = lx->text[lx->at];
      if ((n == '+' || n == '-') && strchr("eEpP", lx->text[lx->at - 1]))
        lx->at++;
      else if (n == '\'' && lx->at + 1 < lx->size &&
               is_word_char((unsigned char)lx->text[lx->at + 1]))
        lx->at += 2;
      else if (is_word_char((unsigned char)n) || n == '.')
        lx->at++;
      else
        break;
    }
    add_token(lx, TOKEN_NUMBER, start);
  } else if (is_word_char((unsigned char)c)) {
    int raw = 0;
    while (lx->at < lx->size && is_word_char((unsigned char)lx->text[lx->at]))
      lx->at++;
    if (lx->at < lx->size && (lx->text[lx->at] == '"' || lx->text[lx->at] == '\'') &&
        is_literal_prefix(lx->text + start, lx->at - start, &raw)) {
      if (raw && lx->text[lx->at] == '"')
        skip_raw_string(lx);
      else
        skip_quoted(lx);
      add_token(lx, TOKEN_LITERAL, start);
    } else {
      add_token(lx, TOKEN_WORD, start);
    }
  } else if (c == '"' || c == '\'') {
    skip_quoted(lx);
    add_token(lx, TOKEN_LITERAL, start);
  } else {
    lx->at++;
    for (i = 0; i < sizeof compound_punctuators / sizeof compound_punctuators[0]; i++) {
      size_t length = strlen(compound_punctuators[i]);
      if (start + length <= lx->size &&
          memcmp(lx->text + start, compound_punctuators[i], length) == 0) {
        lx->at = start + length;
        break;
      }
    }
    add_token(lx, TOKEN_PUNCT, start);
  }
  return 1;
}

/* ---- Reading instantiations ----------------------------------------------------------------- */

/* What a '{' opened. */
typedef enum block_kind { BLOCK_NAMESPACE, BLOCK_LINKAGE, BLOCK_OTHER } block_kind;

typedef struct block {
  block_kind kind;
  size_t num_names; /* the names a namespace block added to the scope (`namespace a::b {`: 2) */
} block;

/*
 * An open conditional block (#if ... #endif). Its branches are alternatives: each starts from
 * the blocks open at its #if, and after #endif no more stay open than after the first branch
 * (`#ifdef A` `if (x) {` `#else` `if (y) {` `#endif` opens one block, not two).
 */
typedef struct conditional {
  size_t depth_at_if;  /* blocks open at the #if */
  size_t depth_after;  /* blocks open at the end of the first branch read (with first_read) */
  int first_read;
} conditional;

typedef struct scanner {
  lexer lx;
  block *blocks;
  size_t depth, capacity;
  conditional *conditionals;
  size_t num_conditionals, conditionals_capacity;
  size_t skipping;      /* > 0: in the branch of an #if 0, conditionals[skipping - 1]: no code */
  size_t other_blocks;  /* blocks open that are not namespaces or linkage blocks */
  cubind_strlist scope; /* the names of the open namespaces */
  size_t counted;       /* line_and_column: the text before this offset is counted */
  unsigned line;        /* the line at `counted` */
  size_t line_begin;    /* the offset its line begins at */
} scanner;

static int is_word(const scanner *s, size_t i) {
  return i < s->lx.count && s->lx.tokens[i].kind == TOKEN_WORD;
}

static int is(const scanner *s, size_t i, const char *text) {
  return i < s->lx.count && s->lx.tokens[i].length == strlen(text) &&
         memcmp(s->lx.text + s->lx.tokens[i].start, text, s->lx.tokens[i].length) == 0;
}

/* Whether tokens[i] is a name: a word, not a keyword that can come before one (`void ::f`). */
static int is_name(const scanner *s, size_t i) {
  static const char *const keywords[] = {
      "void",   "auto",     "bool",     "char",    "int",    "long",     "short",
      "signed", "unsigned", "float",    "double",  "const",  "volatile", "static",
      "inline", "extern",   "typename", "template", "struct", "class",   "enum",
      "union",  "constexpr"};
  size_t k;
  if (!is_word(s, i))
    return 0;
  for (k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
    if (is(s, i, keywords[k]))
      return 0;
  return 1;
}


/* Joins the spellings of tokens[first..last] with spaces (new string). */
static char *join(const scanner *s, size_t first, size_t last) {
  cubind_buf out = {0};
  size_t i;
  cubind_buf_puts(&out, "");
  for (i = first; i <= last; i++) {
    if (i > first)
      cubind_buf_puts(&out, " ");
    cubind_buf_append(&out, s->lx.text + s->lx.tokens[i].start, s->lx.tokens[i].length);
  }
  return out.data;
}

static void open_block(scanner *s, block_kind kind, size_t num_names) {
  if (s->depth == s->capacity) {
    s->capacity = s->capacity ? s->capacity * 2 : 16;
    s->blocks = cubind_xrealloc(s->blocks, s->capacity * sizeof *s->blocks);
  }
  s->blocks[s->depth].kind = kind;
  s->blocks[s->depth].num_names = num_names;
  s->depth++;
  s->other_blocks += kind == BLOCK_OTHER;
}

static void close_block(scanner *s) {
  block *b;
  if (!s->depth) /* more '}' than '{' (braces under #if): nothing to close */
    return;
  b = &s->blocks[--s->depth];
  s->other_blocks -= b->kind == BLOCK_OTHER;
  while (b->num_names--)
    free(s->scope.items[--s->scope.count]);
}

/* Words whose parenthesised arguments qualify a declaration, as attributes do. */
static const char *const attribute_words[] = {"__attribute__", "__launch_bounds__", "__declspec",
                                              "alignas", "__align__", "__cluster_dims__"};

/*
 * The index after the attribute at tokens[i] (`[[gnu::visibility("hidden")]]`,
 * `__attribute__((visibility("hidden")))`, `__launch_bounds__(256)`), or i when none starts
 * there.
 */
static size_t skip_attribute(const scanner *s, size_t i) {
  const char *open = NULL, *close;
  size_t j = i, k;
  int depth = 0;
  if (is(s, i, "[") && is(s, i + 1, "["))
    open = "[";
  for (k = 0; !open && k < sizeof attribute_words / sizeof attribute_words[0]; k++)
    if (is(s, i, attribute_words[k]) && is(s, i + 1, "(")) {
      open = "(";
      j = i + 1;
    }
  if (!open)
    return i;
  close = open[0] == '[' ? "]" : ")";
  for (; j < s->lx.count; j++) {
    if (is(s, j, open))
      depth++;
    else if (is(s, j, close) && --depth == 0)
      return j + 1;
  }
  return i;
}

/*
 * At `namespace` (tokens[i]): opens the block of `namespace a::inline b {` (or `namespace {`,
 * attributes read past) and returns the index of its '{'; returns i when no block follows (an
 * alias, or what the scan cannot read: the '{' then opens a block of unknown scope).
 */
static size_t open_namespace(scanner *s, size_t i) {
  size_t j = i + 1, names = 0, next;
  for (;;) {
    if ((next = skip_attribute(s, j)) != j)
      j = next;
    else if (is_word(s, j) || is(s, j, "::"))
      j++;
    else
      break;
  }
  if (!is(s, j, "{"))
    return i;
  for (j = i + 1; !is(s, j, "{"); j++) {
    if ((next = skip_attribute(s, j)) != j) {
      j = next - 1;
    } else if (is_word(s, j) && !is(s, j, "inline")) {
      char *name = join(s, j, j);
      cubind_strlist_add(&s->scope, name);
      free(name);
      names++;
    }
  }
  if (!names) /* anonymous */
    cubind_strlist_add(&s->scope, "");
  open_block(s, BLOCK_NAMESPACE, names ? names : 1);
  return j;
}

/* Reads the conditional directive at tokens[i] (conditional's comment says how). */
static void take_conditional(scanner *s, size_t i) {
  const token *t = &s->lx.tokens[i];
  conditional *top = s->num_conditionals ? &s->conditionals[s->num_conditionals - 1] : NULL;
  if (t->length >= 2 && memcmp(s->lx.text + t->start, "if", 2) == 0) {
    if (s->num_conditionals == s->conditionals_capacity) {
      s->conditionals_capacity = s->conditionals_capacity ? s->conditionals_capacity * 2 : 8;
      s->conditionals =
          cubind_xrealloc(s->conditionals, s->conditionals_capacity * sizeof *s->conditionals);
    }
    top = &s->conditionals[s->num_conditionals++];
    top->depth_at_if = s->depth;
    top->depth_after = 0;
    top->first_read = 0;
    if (t->if_zero && !s->skipping)
      s->skipping = s->num_conditionals;
  } else if (!top) { /* an #else or #endif without its #if: nothing to do */
  } else if (is(s, i, "endif")) {
    if (s->skipping == s->num_conditionals)
      s->skipping = 0;
    else if (!s->skipping && top->first_read)
      while (s->depth > top->depth_after)
        close_block(s);
    s->num_conditionals--;
  } else { /* #elif, #else */
    if (s->skipping == s->num_conditionals) {
      s->skipping = 0; /* the #if 0 branch ends; it counts as none */
    } else if (!s->skipping) {
      if (!top->first_read) {
        top->first_read = 1;
        top->depth_after = s->depth;
      }
      while (s->depth > top->depth_at_if)
        close_block(s);
    }
  }
}

/*
 * The line and 1-based byte column of `offset` in the text; offsets come in increasing order,
 * so the count of lines goes on from the last one.
 */
static void line_and_column(scanner *s, size_t offset, unsigned *line, unsigned *column) {
  for (; s->counted < offset; s->counted++)
    if (s->lx.text[s->counted] == '\n') {
      s->line++;
      s->line_begin = s->counted + 1;
    }
  *line = s->line;
  *column = (unsigned)(offset - s->line_begin + 1);
}

/*
 * The first name of tokens[first..last] that a #define or #undef after them gives (new string),
 * or NULL: the instantiation's line at the end of the .cu would read it otherwise.
 */
static char *redefined_macro(const scanner *s, size_t first, size_t last) {
  size_t i, m;
  for (i = first; i <= last; i++)
    for (m = 0; is_word(s, i) && m < s->lx.num_macros; m++) {
      const token *macro = &s->lx.macros[m];
      if (macro->start > s->lx.tokens[last].start &&
          macro->length == s->lx.tokens[i].length &&
          memcmp(s->lx.text + macro->start, s->lx.text + s->lx.tokens[i].start, macro->length) ==
              0)
        return join(s, i, i);
    }
  return NULL;
}

/*
 * Reads the explicit instantiation declared after the `template` at tokens[start - 1]:
 * `[__global__] void [scopes ::] name [< args >] ( params ) ;`. Returns 1 and fills *found
 * (its scope and location aside) when the tokens have that shape.
 */
static int read_instantiation(scanner *s, size_t start, written_instantiation *found) {
  size_t open = start, close, name, begin, i;
  int angle = 0, paren = 0, depth = 0;
  /* the parameter list's '(': the first outside the template arguments, which may hold
     parentheses of their own (f<(1 + 2)>, f<sizeof(double)>, h<int (*)[3]>) */
  for (; open < s->lx.count && !is(s, open, ";"); open++) {
    size_t after = paren == 0 && angle <= 0 ? skip_attribute(s, open) : open;
    if (after != open) { /* `template __global__ __launch_bounds__(256) void k<float>(...)` */
      open = after - 1;
      continue;
    }
    if (is(s, open, "(")) {
      if (angle <= 0 && paren == 0)
        break;
      paren++;
    } else if (is(s, open, ")")) {
      paren--;
    } else if (paren == 0 && is(s, open, "<")) {
      angle++;
    } else if (paren == 0 && is(s, open, ">")) {
      angle--;
    } else if (paren == 0 && is(s, open, ">>")) {
      angle -= 2;
    }
  }
  if (open >= s->lx.count || open == start || !is(s, open, "("))
    return 0;
  for (close = open; close < s->lx.count; close++) {
    if (is(s, close, "("))
      depth++;
    else if (is(s, close, ")") && --depth == 0)
      break;
  }
  if (close >= s->lx.count)
    return 0;
  name = open - 1;
  found->args = NULL;
  /* back over the template arguments; `f<float, Max<float>>(` ends in one `>>` token */
  if (is(s, name, ">") || is(s, name, ">>")) {
    paren = 0; /* a '<' or '>' inside parentheses, (a > b), is an operator */
    depth = 0;
    for (i = name + 1; i-- > start;) {
      if (is(s, i, ")"))
        paren++;
      else if (is(s, i, "("))
        paren--;
      else if (paren == 0 && is(s, i, ">"))
        depth++;
      else if (paren == 0 && is(s, i, ">>"))
        depth += 2;
      else if (paren == 0 && is(s, i, "<") && --depth == 0)
        break;
    }
    if (i <= start || i > name)
      return 0;
    found->args = join(s, i, name);
    name = i - 1;
  }
  if (!is_name(s, name)) {
    free(found->args);
    return 0;
  }
  /* back over "scope ::" pairs, then a leading "::" */
  begin = name;
  while (begin >= start + 2 && is(s, begin - 1, "::") && is_name(s, begin - 2))
    begin -= 2;
  if (begin >= start + 2 && is(s, begin - 1, "::") &&
      (is(s, begin - 2, ">") || is(s, begin - 2, ">>"))) { /* Tensor<float>::fill: a member */
    free(found->args);
    return 0;
  }
  if (begin >= start + 1 && is(s, begin - 1, "::"))
    begin--;
  if (!found->args)
    found->args = cubind_xstrdup("");
  found->name = join(s, name, name);
  found->written = join(s, begin, name);
  found->global = is(s, begin, "::");
  for (i = begin; i < name; i++)
    if (is_word(s, i)) {
      char *qualifier = join(s, i, i);
      cubind_strlist_add(&found->qualifiers, qualifier);
      free(qualifier);
    }
  found->params = join(s, open, close);
  found->redefined_macro = redefined_macro(s, begin, close);
  line_and_column(s, s->lx.tokens[name].start, &found->line, &found->column);
  return 1;
}

/*
 * Whether the `template` at tokens[i] may begin an explicit instantiation: not a template's
 * head, not an explicit instantiation declaration (`extern template`), not a disambiguator
 * (`x.template f<int>()`). One in a block the scan did not read as a namespace is kept too,
 * its scope unknown: braces under #if, a macro that opens a namespace, may be why.
 */
static int may_instantiate(const scanner *s, size_t i) {
  return is(s, i, "template") && i + 1 < s->lx.count && !is(s, i + 1, "<") &&
         (i == 0 || (!is(s, i - 1, "extern") && !is(s, i - 1, ".") && !is(s, i - 1, "->") &&
                     !is(s, i - 1, "::")));
}

/* scan_instantiations: see instantiation_scan.h. */
size_t scan_instantiations(const char *text, size_t size, written_instantiation **found) {
  scanner s;
  size_t count = 0, capacity = 0, i;
  memset(&s, 0, sizeof s);
  s.lx.text = text;
  s.lx.size = size;
  s.lx.line_start = 1;
  s.line = 1;
  *found = NULL;
  while (lex_one(&s.lx))
    ;
  for (i = 0; i < s.lx.count; i++) {
    if (s.lx.tokens[i].kind == TOKEN_CONDITIONAL) {
      take_conditional(&s, i);
    } else if (s.skipping) {
      continue;
    } else if (is(&s, i, "namespace")) {
      i = open_namespace(&s, i);
    } else if (is(&s, i, "extern") && i + 2 < s.lx.count &&
               s.lx.tokens[i + 1].kind == TOKEN_LITERAL && is(&s, i + 2, "{")) {
      open_block(&s, BLOCK_LINKAGE, 0);
      i += 2;
    } else if (is(&s, i, "{")) {
      open_block(&s, BLOCK_OTHER, 0);
    } else if (is(&s, i, "}")) {
      close_block(&s);
    } else if (may_instantiate(&s, i)) {
      written_instantiation next;
      size_t k;
      memset(&next, 0, sizeof next);
      if (!read_instantiation(&s, i + 1, &next))
        continue;
      next.offset = s.lx.tokens[i].start;
      next.scope_known = !s.other_blocks;
      for (k = 0; k < s.scope.count; k++)
        cubind_strlist_add(&next.scope, s.scope.items[k]);
      if (count == capacity) {
        capacity = capacity ? capacity * 2 : 8;
        *found = cubind_xrealloc(*found, capacity * sizeof **found);
      }
      (*found)[count++] = next;
    }
  }
  free(s.lx.tokens);
  free(s.lx.macros);
  free(s.blocks);
  free(s.conditionals);
  cubind_strlist_free(&s.scope);
  return count;
}

/* scan_instantiations_free: see instantiation_scan.h. */
void scan_instantiations_free(written_instantiation *list, size_t count) {
  size_t i;
  for (i = 0; i < count; i++) {
    cubind_strlist_free(&list[i].scope);
    cubind_strlist_free(&list[i].qualifiers);
    free(list[i].redefined_macro);
    free(list[i].name);
    free(list[i].written);
    free(list[i].args);
    free(list[i].params);
  }
  free(list);
}

/* scan_template_namespaces: see instantiation_scan.h. */
void scan_template_namespaces(const cubind_strlist *scope, const written_instantiation *inst,
                              cubind_strlist *namespaces) {
  size_t i;
  for (i = 0; !inst->global && i < scope->count; i++)
    cubind_strlist_add(namespaces, scope->items[i]);
  for (i = 0; i < inst->qualifiers.count; i++)
    cubind_strlist_add(namespaces, inst->qualifiers.items[i]);
}

/* scan_reference_line: see instantiation_scan.h. */
char *scan_reference_line(const char *variable, const cubind_strlist *namespaces,
                          const char *name, const written_instantiation *inst) {
  cubind_buf line = {0};
  size_t i;
  for (i = 0; i < namespaces->count; i++)
    cubind_buf_printf(&line, "namespace %s%s{ ", namespaces->items[i],
                      namespaces->items[i][0] ? " " : "");
  cubind_buf_printf(&line, "static void *%s = (void *)static_cast<void (*)%s>(&%s%s);", variable,
                    inst->params, name, inst->args);
  for (i = 0; i < namespaces->count; i++)
    cubind_buf_puts(&line, " }");
  return line.data;
}
