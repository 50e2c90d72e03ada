import { writeEmbeddedDatabaseFolder } from './database.js';
import { writeShippedEmbeddedImage } from './embedded-image.js';

// Run by `npm run build` after the compiler: writes the embedded database's image (embedded-image.ts).
const outcome = await writeShippedEmbeddedImage(writeEmbeddedDatabaseFolder);
if (outcome === 'written') process.stdout.write('embedded database image written\n');
