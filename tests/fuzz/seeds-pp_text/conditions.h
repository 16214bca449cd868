/* Conditions in the shapes headers write them. */
#if defined(FEATURE_A) && defined(FEATURE_B) && !defined(NDEBUG)
#  define CHECKED 1
#elif (VERSION_MAJOR > 12) || ((VERSION_MAJOR == 12) && (VERSION_MINOR >= 3))
#  define CHECKED 2
#endif
#if !defined(OPT_LEVEL) || OPT_LEVEL >= 201307L || defined(__clang__)
#endif
#if (X * 4 + 1) % 3 == 1 ? Y << 2 : ~Z
#endif
#if defined X || defined(Y) \
    || Z - 1 > 0 /* a comment */ && W
#endif
#ifdef A
#elif __has_include(<vector>) && F(1, (2))
#endif
#if 0x10 == 16 && 010 == 8 && 'a' && true && !false
#endif
