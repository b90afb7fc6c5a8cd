/*
 * xml.h: text for the XML documents gdb reads (threads, libraries, osdata).
 */
#ifndef UTRACED_XML_H
#define UTRACED_XML_H

#include "buf.h"

/*
 * Append str as XML text (attribute or character data): the five markup
 * characters become entities; a byte XML cannot carry (a control
 * character, invalid UTF-8: a thread or file name may hold anything)
 * becomes '?', since gdb drops the whole document when its parser meets
 * one.
 */
void xml_escape(struct buf *b, const char *str);

#endif
