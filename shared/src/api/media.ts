// The media types of what the API serves from the Object Store: screenshots by their
// `format` (the screenshotOptions.format asked for). One table for the fetcher that stores
// them, the API that serves and inlines them and the console.
export const SCREENSHOT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type ScreenshotFormat = (typeof SCREENSHOT_FORMATS)[number];

export const SCREENSHOT_MEDIA_TYPES: Readonly<Record<ScreenshotFormat, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

/** The Content-Type of a stored screenshot; an unknown format is served as opaque bytes. */
export function screenshotMediaType(format: string): string {
  return (SCREENSHOT_MEDIA_TYPES as Record<string, string | undefined>)[format] ?? 'application/octet-stream';
}
